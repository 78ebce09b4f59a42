import type { Queryable } from "./db.js";
import { anyOf, keysetSource, type RowSource } from "./row-source.js";
import { Where } from "./sql.js";

export interface TlsCaCertificateRow {
  seq: number;
  id: string;
  tenant_id: string;
  display_name: string;
  pem: string;
}

const COLUMNS = "seq, id, tenant_id, display_name, pem";

export async function getTlsCaCertificate(
  db: Queryable,
  tenantId: string,
  id: string,
): Promise<TlsCaCertificateRow | undefined> {
  return (
    await db.query<TlsCaCertificateRow>(
      `select ${COLUMNS} from tlscacertificates where tenant_id = $1 and id = $2`,
      [tenantId, id],
    )
  )[0];
}

/** A tenancy's TLS CA certificates, optionally by display name. */
export function tlsCaCertificateRows(
  db: Queryable,
  tenantId: string,
  f: { displayName?: string[] | undefined },
): RowSource<TlsCaCertificateRow> {
  const w = new Where([tenantId]).and("tenant_id = $1");
  return keysetSource(db, "tlscacertificates", COLUMNS, anyOf(w, "display_name", f.displayName));
}

export async function countTlsCaCertificates(db: Queryable, tenantId: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    "select count(*)::int as n from tlscacertificates where tenant_id = $1",
    [tenantId],
  );
  return rows[0]?.n ?? 0;
}

export async function insertTlsCaCertificate(
  db: Queryable,
  c: Omit<TlsCaCertificateRow, "seq">,
): Promise<TlsCaCertificateRow> {
  const rows = await db.query<TlsCaCertificateRow>(
    `insert into tlscacertificates (id, tenant_id, display_name, pem) values ($1, $2, $3, $4) returning ${COLUMNS}`,
    [c.id, c.tenant_id, c.display_name, c.pem],
  );
  return rows[0] as TlsCaCertificateRow;
}

/** Writes the given fields; undefined when the certificate is not in that tenancy. */
export async function updateTlsCaCertificate(
  db: Queryable,
  tenantId: string,
  id: string,
  patch: { display_name?: string | undefined; pem?: string | undefined },
): Promise<TlsCaCertificateRow | undefined> {
  const rows = await db.query<TlsCaCertificateRow>(
    `update tlscacertificates set display_name = coalesce($3, display_name), pem = coalesce($4, pem)
     where tenant_id = $1 and id = $2 returning ${COLUMNS}`,
    [tenantId, id, patch.display_name ?? null, patch.pem ?? null],
  );
  return rows[0];
}

export async function deleteTlsCaCertificate(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  const rows = await db.query("delete from tlscacertificates where tenant_id = $1 and id = $2 returning id", [
    tenantId,
    id,
  ]);
  return rows.length > 0;
}
