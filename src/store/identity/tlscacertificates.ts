import { tenantTable } from "../query/tenant-table.js";

export interface TlsCaCertificateRow {
  seq: number;
  id: string;
  tenant_id: string;
  display_name: string;
  pem: string;
}

const table = tenantTable<TlsCaCertificateRow, "display_name" | "pem">({
  table: "tlscacertificates",
  columns: ["seq", "id", "tenant_id", "display_name", "pem"],
  patchable: ["display_name", "pem"],
});

export const getTlsCaCertificate = table.get;

/** A tenancy's TLS CA certificates, optionally by display name. */
export const tlsCaCertificateRows = table.byDisplayName;

export const countTlsCaCertificates = table.count;
export const insertTlsCaCertificate = table.insert;
/** Writes the given fields; undefined when the certificate is not in that tenancy. */
export const updateTlsCaCertificate = table.update;
export const deleteTlsCaCertificate = table.remove;
