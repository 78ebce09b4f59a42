import { randomUUID, X509Certificate } from "node:crypto";
import type { Ctx, Principal } from "../../context.js";
import { badRequest } from "../../errors/api-error.js";
import {
  countTlsCaCertificates,
  deleteTlsCaCertificate,
  getTlsCaCertificate,
  insertTlsCaCertificate,
  type TlsCaCertificateRow,
  tlsCaCertificateRows,
  updateTlsCaCertificate,
} from "../../store/identity/tlscacertificates.js";
import { adminCollection, identified } from "../admin-collection.js";
import { valuesOf } from "../records/list-query.js";

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** API shape of a certificate, under both spellings of the certificate field. */
export function tlsCertificateOut(row: TlsCaCertificateRow) {
  return {
    ...identified("tlscacertificates", row, ["display_name"]),
    tlscacertificate: row.pem,
    certificate: row.pem,
  };
}

/** PEM text with line breaks restored (clients often send them as the two characters `\n`). */
function normalisePem(text: string): string {
  return `${text.replace(/\\r\\n|\\n|\r\n/g, "\n").trim()}\n`;
}

/** Parses and checks every certificate of a PEM: each must be a CA certificate that has not expired. */
function validateCaPem(pem: string, field: string, now = new Date()): void {
  const blocks = pem.match(PEM_BLOCK);
  if (!blocks?.length) throw badRequest(`${field} must hold a PEM certificate (-----BEGIN CERTIFICATE-----)`);
  blocks.forEach((block, i) => {
    const where = blocks.length > 1 ? `${field} (certificate ${i + 1})` : field;
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(block);
    } catch {
      throw badRequest(`${where} is not a parsable X.509 certificate`);
    }
    if (!cert.ca) throw badRequest(`${where} is not a CA certificate (basicConstraints CA:TRUE is missing)`);
    if (new Date(cert.validTo).getTime() <= now.getTime())
      throw badRequest(`${where} expired on ${new Date(cert.validTo).toISOString()}`);
  });
}

/** The certificate sent under either field name, normalised and validated; undefined when none was sent. */
function certificateInput(input: {
  tlscacertificate?: string | undefined;
  certificate?: string | undefined;
}) {
  const field = input.tlscacertificate !== undefined ? "tlscacertificate" : "certificate";
  const raw = input.tlscacertificate ?? input.certificate;
  if (raw === undefined) return undefined;
  const pem = normalisePem(raw);
  validateCaPem(pem, field);
  return pem;
}

export interface TlsCertificateInput {
  display_name?: string | undefined;
  tlscacertificate?: string | undefined;
  certificate?: string | undefined;
}

const certificates = adminCollection({
  forbidden: "owner privileges are needed to manage TLS CA certificates",
  item: "TLS CA certificate",
  out: tlsCertificateOut,
  get: getTlsCaCertificate,
  delete: deleteTlsCaCertificate,
  list: (db, tenantId, pairs) =>
    tlsCaCertificateRows(db, tenantId, { displayName: valuesOf(pairs, "display_name") }),
  quota: { key: "tlscacertificates", label: "TLS CA certificates", count: countTlsCaCertificates },
});

/** Uploads a CA certificate, under the tenancy's `tlscacertificates` quota. */
export async function createTlsCertificate(ctx: Pick<Ctx, "db">, p: Principal, input: TlsCertificateInput) {
  certificates.requireAdmin(p);
  const pem = certificateInput(input);
  if (!pem) throw badRequest("tlscacertificate (or certificate) is required");
  const row = await certificates.insertUnderQuota(ctx.db, p.tenantId, (tx) =>
    insertTlsCaCertificate(tx, {
      id: randomUUID(),
      tenant_id: p.tenantId,
      display_name: input.display_name ?? "",
      pem,
    }),
  );
  return tlsCertificateOut(row);
}

export const readTlsCertificate = certificates.read;

/** The tenancy's TLS CA certificates an administrator lists, filtered by the query. */
export const tlsCertificateSource = certificates.source;

/** PATCH: each field sent replaces the stored one; a new certificate is validated like on upload. */
export const patchTlsCertificate = certificates.patcher((db, tenantId, id, patch: TlsCertificateInput) =>
  updateTlsCaCertificate(db, tenantId, id, {
    display_name: patch.display_name,
    pem: certificateInput(patch),
  }),
);

export const removeTlsCertificate = certificates.remove;
