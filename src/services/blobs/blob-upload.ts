import { createHash, randomUUID } from "node:crypto";
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir, open, rm } from "node:fs/promises";
import type { IncomingHttpHeaders } from "node:http";
import { join } from "node:path";
import type { Readable } from "node:stream";
import busboy from "busboy";
import type { Ctx, Principal } from "../../context.js";
import { ApiError, badRequest, quotaExceeded } from "../../core/api/api-error.js";
import { blobUsage, contentReferenced, insertBlob, lockContent } from "../../store/blobs.js";
import { getTenancy, lockTenancy } from "../../store/tenancies.js";
import { sniffUpload } from "./blob-sniff.js";

interface Received {
  tmpPath: string;
  hash: string;
  size: number;
  head: Uint8Array;
}

const HEAD_BYTES = 4100;
/**
 * Room for a multipart body's boundaries, part headers and small fields around its file (the
 * body parser's limit on a multipart body is the largest blob plus this, src/http/app.ts).
 */
export const MULTIPART_OVERHEAD = 64 * 1024;

/** Where a multipart body comes from: its headers and its bytes (inflated, if it was compressed). */
export interface MultipartSource {
  headers: IncomingHttpHeaders;
  stream: Readable;
}

/**
 * Streams the `file` part to a temporary file, hashing as it goes; aborts past `limit` file
 * bytes or `limit` plus `overhead` body bytes. Every stream involved has an error path: a
 * truncated or malformed body, a client gone away, a full disk each end in a refusal (never
 * an unhandled `error` event), and the partial file is removed.
 */
function receive(
  source: MultipartSource,
  tmpDir: string,
  limit: number,
  overLimit: () => ApiError,
): Promise<Received> {
  return new Promise((resolve, reject) => {
    const { stream: body } = source;
    let bb: busboy.Busboy;
    try {
      // busboy reports `limit` once a file reaches fileSize bytes: one more lets exactly `limit` through.
      bb = busboy({
        headers: source.headers,
        limits: { files: 1, fileSize: Math.max(0, limit) + 1, fields: 10, parts: 20 },
      });
    } catch {
      body.resume();
      reject(badRequest("body must be multipart/form-data with a part named file"));
      return;
    }
    let settled = false;
    let got: Promise<Received> | undefined;
    let written: { out: WriteStream; tmpPath: string } | undefined;
    // Drops the partial file, once closed: an rm racing the pending open would leave it behind.
    const discard = () => {
      if (!written) return;
      const { out, tmpPath } = written;
      written = undefined;
      if (out.closed) void rm(tmpPath, { force: true });
      else {
        out.once("close", () => void rm(tmpPath, { force: true }));
        out.destroy();
      }
    };
    // The first failure answers; the body is then drained unread so the answer can be sent.
    const fail = (err: ApiError) => {
      if (settled) return;
      settled = true;
      discard();
      body.unpipe(bb);
      body.resume();
      reject(err);
    };
    // A body that failed before it was read (bytes that do not inflate, the body deadline)
    // will emit nothing more.
    if (body.destroyed) {
      fail(body.errored instanceof ApiError ? body.errored : badRequest("the upload could not be read"));
      return;
    }
    let total = 0;
    body.on("data", (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit + MULTIPART_OVERHEAD) fail(overLimit());
    });
    body.on("error", (err) =>
      fail(err instanceof ApiError ? err : badRequest("the upload could not be read")),
    );
    bb.on("file", (name, stream) => {
      // A file part after the failure, or not the one we want, is read and dropped.
      stream.on("error", () => fail(badRequest("multipart body is malformed or cut short")));
      if (name !== "file" || settled || written) {
        stream.resume();
        return;
      }
      const tmpPath = join(tmpDir, randomUUID());
      const hash = createHash("sha256");
      const head: Buffer[] = [];
      let size = 0;
      const out = createWriteStream(tmpPath);
      written = { out, tmpPath };
      stream.on("data", (chunk: Buffer) => {
        hash.update(chunk);
        if (size < HEAD_BYTES) head.push(chunk.subarray(0, HEAD_BYTES - size));
        size += chunk.length;
      });
      stream.on("limit", () => fail(overLimit()));
      got = new Promise((ok, no) => {
        out.on("finish", () =>
          ok({ tmpPath, hash: hash.digest("hex"), size, head: new Uint8Array(Buffer.concat(head)) }),
        );
        out.on("error", () => no(new ApiError("internal", "the upload could not be stored")));
      });
      // Refusals are answered by `fail`; this only keeps the promise from going unhandled.
      got.catch(() => undefined);
      stream.pipe(out);
    });
    bb.on("error", () => fail(badRequest("multipart body is malformed or cut short")));
    bb.on("close", () => {
      if (settled) return;
      if (!got) return fail(badRequest("multipart body has no part named file"));
      got.then(
        (r) => {
          if (settled) void rm(r.tmpPath, { force: true });
          else {
            settled = true;
            resolve(r);
          }
        },
        (err: ApiError) => fail(err),
      );
    });
    // A client that goes away mid-upload: busboy never closes, so the partial file goes here.
    let ended = false;
    body.once("end", () => {
      ended = true;
    });
    body.on("close", () => {
      if (!ended) fail(badRequest("the upload was cut short"));
    });
    body.pipe(bb);
  });
}

/** POST /archivist/v1/blobs: quota checked before the body is stored, bytes content-addressed. */
export async function uploadBlob(ctx: Ctx, p: Principal, req: MultipartSource) {
  const quotas = (await getTenancy(ctx.db, p.tenantId))?.quotas ?? {};
  const usage = await blobUsage(ctx.db, p.tenantId);
  if (quotas.blobs !== undefined && usage.count >= quotas.blobs) throw quotaExceeded("blobs", quotas.blobs);
  const remaining =
    quotas.blob_bytes === undefined ? Number.POSITIVE_INFINITY : quotas.blob_bytes - usage.bytes;
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > remaining + MULTIPART_OVERHEAD)
    throw quotaExceeded("blob bytes", quotas.blob_bytes ?? 0);
  const limit = Math.min(ctx.config.blobMaxBytes, remaining);
  const tmpDir = join(ctx.config.dataDir, "blobs", "tmp");
  await mkdir(tmpDir, { recursive: true });
  const got = await receive(req, tmpDir, limit, () =>
    limit < ctx.config.blobMaxBytes
      ? quotaExceeded("blob bytes", quotas.blob_bytes ?? 0)
      : new ApiError("payload_too_large", `blobs are limited to ${ctx.config.blobMaxBytes} bytes`),
  );
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
      const now = await blobUsage(tx, p.tenantId);
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

async function readAll(path: string): Promise<Uint8Array> {
  const f = await open(path);
  try {
    return new Uint8Array(await f.readFile());
  } finally {
    await f.close();
  }
}
