import type { Queryable } from "../drivers/db.js";

export interface BlobRow {
  id: string;
  tenant_id: string;
  hash: string;
  size: number;
  mime_type: string;
  issuer: string;
  subject: string;
  timestamp_accepted: Date;
  scanned_status: "NOT_SCANNED" | "SCANNED_OK" | "SCANNED_BAD";
  scanned_bad_reason: string;
  scanned_timestamp: Date | null;
}

const COLUMNS =
  "id, tenant_id, hash, size, mime_type, issuer, subject, timestamp_accepted, scanned_status, scanned_bad_reason, scanned_timestamp";

export async function insertBlob(
  db: Queryable,
  b: Omit<BlobRow, "timestamp_accepted" | "scanned_status" | "scanned_bad_reason" | "scanned_timestamp">,
): Promise<BlobRow> {
  const rows = await db.query<BlobRow>(
    `insert into blobs (id, tenant_id, hash, size, mime_type, issuer, subject) values ($1, $2, $3, $4, $5, $6, $7) returning ${COLUMNS}`,
    [b.id, b.tenant_id, b.hash, b.size, b.mime_type, b.issuer, b.subject],
  );
  return rows[0] as BlobRow;
}

/** Who uploaded a blob: a caller that is not the tenancy's administrator reaches only its own. */
export interface BlobUploader {
  issuer: string;
  subject: string;
}

/** The condition on a blob of the tenancy by id, and by uploader when one is given. */
function blobWhere(tenantId: string, id: string, uploader?: BlobUploader): { sql: string; params: string[] } {
  return uploader
    ? {
        sql: "tenant_id = $1 and id = $2 and issuer = $3 and subject = $4",
        params: [tenantId, id, uploader.issuer, uploader.subject],
      }
    : { sql: "tenant_id = $1 and id = $2", params: [tenantId, id] };
}

/** A blob of the tenancy (uploaded by `uploader`, when given), if there is one. */
export async function getBlob(
  db: Queryable,
  tenantId: string,
  id: string,
  uploader?: BlobUploader,
): Promise<BlobRow | undefined> {
  const w = blobWhere(tenantId, id, uploader);
  const r = (await db.query<BlobRow>(`select ${COLUMNS} from blobs where ${w.sql}`, w.params))[0];
  return r && { ...r, size: Number(r.size) };
}

/** The content hash of a blob of the tenancy (uploaded by `uploader`, when given), if there is one (an attachment's check). */
export async function blobHash(
  db: Queryable,
  tenantId: string,
  id: string,
  uploader?: BlobUploader,
): Promise<string | undefined> {
  const w = blobWhere(tenantId, id, uploader);
  return (await db.query<{ hash: string }>(`select hash from blobs where ${w.sql}`, w.params))[0]?.hash;
}

/**
 * Serialises, until the transaction ends, every upload of the content `hash` (see
 * `BlobStore.remove`): storing its bytes, recording a blob of it, and removing bytes nothing
 * references are then never interleaved.
 */
export async function lockContent(tx: Queryable, hash: string): Promise<void> {
  await tx.query("select pg_advisory_xact_lock(hashtextextended($1, 7246))", [`blob:${hash}`]);
}

/** Whether any blob, of any tenancy, references the content `hash`. */
export async function contentReferenced(db: Queryable, hash: string): Promise<boolean> {
  return (await db.query("select 1 from blobs where hash = $1 limit 1", [hash])).length > 0;
}

/** Count and bytes of a tenancy's blobs (quota checks). */
export async function blobUsage(db: Queryable, tenantId: string): Promise<{ count: number; bytes: number }> {
  const rows = await db.query<{ n: number; b: string | number | null }>(
    "select count(*)::int as n, coalesce(sum(size), 0)::bigint as b from blobs where tenant_id = $1",
    [tenantId],
  );
  return { count: rows[0]?.n ?? 0, bytes: Number(rows[0]?.b ?? 0) };
}

/** The oldest unscanned blobs (the scanner's batch). */
export async function unscannedBlobs(db: Queryable, limit: number): Promise<BlobRow[]> {
  return db.query<BlobRow>(
    `select ${COLUMNS} from blobs where scanned_status = 'NOT_SCANNED' order by seq limit $1`,
    [limit],
  );
}

export async function recordScan(
  db: Queryable,
  id: string,
  status: "SCANNED_OK" | "SCANNED_BAD",
  reason: string,
): Promise<void> {
  await db.query(
    "update blobs set scanned_status = $2, scanned_bad_reason = $3, scanned_timestamp = now() where id = $1",
    [id, status, reason],
  );
}

/**
 * Deletes the tenancy's blobs of these ids (an erasure of the records that attach them):
 * the ids and content hashes of those it deleted.
 */
export async function deleteBlobs(
  tx: Queryable,
  tenantId: string,
  ids: string[],
): Promise<Array<{ id: string; hash: string }>> {
  if (ids.length === 0) return [];
  return tx.query<{ id: string; hash: string }>(
    "delete from blobs where tenant_id = $1 and id = any($2::uuid[]) returning id, hash",
    [tenantId, ids],
  );
}

/** Which of these blob ids the tenancy holds. */
export async function heldBlobs(db: Queryable, tenantId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.query<{ id: string }>(
    "select id from blobs where tenant_id = $1 and id = any($2::uuid[])",
    [tenantId, ids],
  );
  return rows.map((r) => r.id);
}
