import { randomUUID } from "node:crypto";
import { mkdir, open, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Ctx, Principal } from "../../context.js";
import { ApiError, quotaExceeded } from "../../errors/api-error.js";
import { blobUsage, contentReferenced, insertBlob, lockContent } from "../../store/blobstore/blobs.js";
import type { Queryable } from "../../store/drivers/db.js";
import { getTenancy, lockTenancy } from "../../store/identity/tenancies.js";
import { sniffUpload } from "./blob-sniff.js";

const HEAD_BYTES = 4100;

/** A file received into a temporary file (the use case removes it). */
export interface ReceivedFile {
  tmpPath: string;
  hash: string;
  size: number;
  /** The first bytes, for sniffing the content type. */
  head: Uint8Array;
}

/**
 * An upload as the edge hands it: the least the file can weigh (from the declared body length),
 * checked against the quota before any byte is read, and a way to receive it into `tmpDir`,
 * refusing with `overLimit()` past `limit` bytes and keeping the first `headBytes`.
 */
export interface FileUpload {
  minBytes: number;
  receive(limits: FileLimits): Promise<ReceivedFile>;
}

/** Where a received file goes and how much of it may come. */
export interface FileLimits {
  tmpDir: string;
  limit: number;
  headBytes: number;
  overLimit: () => ApiError;
}

/** POST /archivist/v1/blobs: quota checked before the body is stored, bytes content-addressed. */
export async function uploadBlob(
  ctx: Pick<Ctx, "blobs" | "config" | "db">,
  p: Principal,
  upload: FileUpload,
) {
  const quotas = (await getTenancy(ctx.db, p.tenantId))?.quotas ?? {};
  const usage = await usageAgainst(ctx.db, p.tenantId, quotas);
  if (quotas.blobs !== undefined && usage.count >= quotas.blobs) throw quotaExceeded("blobs", quotas.blobs);
  const remaining =
    quotas.blob_bytes === undefined ? Number.POSITIVE_INFINITY : quotas.blob_bytes - usage.bytes;
  if (upload.minBytes > remaining) throw quotaExceeded("blob bytes", quotas.blob_bytes ?? 0);
  const limit = Math.min(ctx.config.blobMaxBytes, remaining);
  const tmpDir = join(ctx.config.dataDir, "blobs", "tmp");
  await mkdir(tmpDir, { recursive: true });
  const got = await upload.receive({
    tmpDir,
    limit,
    headBytes: HEAD_BYTES,
    overLimit: () =>
      limit < ctx.config.blobMaxBytes
        ? quotaExceeded("blob bytes", quotas.blob_bytes ?? 0)
        : new ApiError("payload_too_large", `blobs are limited to ${ctx.config.blobMaxBytes} bytes`),
  });
  try {
    const mime = await sniffUpload(got.head, () => readAll(got.tmpPath));
    const store = ctx.blobs;
    // A remote store's transfer runs before the transaction; under the lock its put only
    // checks the bytes are still there (see BlobStore.remote).
    if (store.remote) await store.put(got.hash, got.tmpPath, got.size);
    return await ctx.db.transaction(async (tx) => {
      await lockContent(tx, got.hash);
      await store.put(got.hash, got.tmpPath, got.size, tx);
      // Checked again under the tenancy lock: concurrent uploads all passed the check above.
      const limits = (await lockTenancy(tx, p.tenantId))?.quotas ?? {};
      const now = await usageAgainst(tx, p.tenantId, limits);
      const refusal =
        limits.blobs !== undefined && now.count >= limits.blobs
          ? quotaExceeded("blobs", limits.blobs)
          : limits.blob_bytes !== undefined && now.bytes + got.size > limits.blob_bytes
            ? quotaExceeded("blob bytes", limits.blob_bytes)
            : undefined;
      if (refusal) {
        // Bytes nothing references would stay in the store for ever; under the content lock no
        // other upload of them is between its put and its record.
        if (!(await contentReferenced(tx, got.hash))) await store.remove(got.hash, tx);
        throw refusal;
      }
      return insertBlob(tx, {
        id: randomUUID(),
        tenant_id: p.tenantId,
        hash: got.hash,
        size: got.size,
        mime_type: mime,
        issuer: p.issuer,
        subject: p.subject,
      });
    });
  } finally {
    await rm(got.tmpPath, { force: true });
  }
}

/**
 * The tenancy's blob count and bytes, read only when a blob quota is set: the sum reads every
 * blob row of the tenancy, and a tenancy without blob quotas (the default) needs none of it.
 */
async function usageAgainst(
  db: Queryable,
  tenantId: string,
  quotas: { blobs?: number | undefined; blob_bytes?: number | undefined },
): Promise<{ count: number; bytes: number }> {
  if (quotas.blobs === undefined && quotas.blob_bytes === undefined) return { count: 0, bytes: 0 };
  return blobUsage(db, tenantId);
}

async function readAll(path: string): Promise<Uint8Array> {
  const f = await open(path);
  try {
    return new Uint8Array(await f.readFile());
  } finally {
    await f.close();
  }
}
