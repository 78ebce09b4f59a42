import { createHash, randomUUID } from "node:crypto";
import { createWriteStream, type WriteStream } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import type { IncomingHttpHeaders } from "node:http";
import { join } from "node:path";
import type { Readable } from "node:stream";
import busboy from "busboy";
import { ApiError, badRequest } from "../errors/api-error.js";
import type { FileLimits, FileUpload, ReceivedFile } from "../services/blobs/blob-upload.js";

/**
 * Room for a multipart body's boundaries, part headers and small fields around its file (the
 * body parser's limit on a multipart body is the largest blob plus this, src/http/app.ts).
 */
export const MULTIPART_OVERHEAD = 64 * 1024;

/** A file part up to this size is held in memory until it has ended; a larger one streams to disk. */
const SPILL_BYTES = 64 * 1024;

/** Where a multipart body comes from: its headers and its bytes (inflated, if it was compressed). */
export interface MultipartSource {
  headers: IncomingHttpHeaders;
  stream: Readable;
}

/**
 * Streams the `file` part to a temporary file in `tmpDir`, hashing it and keeping its first
 * `headBytes` bytes as it goes; aborts past `limit` file bytes or `limit` plus the multipart
 * overhead in body bytes. Every stream involved has an error path: a
 * truncated or malformed body, a client gone away, a full disk each end in a refusal (never
 * an unhandled `error` event), and the partial file is removed.
 */
function receive(
  source: MultipartSource,
  { tmpDir, limit, headBytes, overLimit }: FileLimits,
): Promise<ReceivedFile> {
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
    let got: Promise<ReceivedFile> | undefined;
    // The temporary file, once it exists (`out` while it is being written).
    let written: { out?: WriteStream; tmpPath: string } | undefined;
    // Drops the partial file, once closed: an rm racing the pending open would leave it behind.
    const discard = () => {
      if (!written) return;
      const { out, tmpPath } = written;
      written = undefined;
      if (!out || out.closed) void rm(tmpPath, { force: true });
      else {
        out.once("close", () => void rm(tmpPath, { force: true }));
        out.destroy();
      }
    };
    // The first failure answers; the body is then drained unread so the answer can be sent. A
    // refusal is made only if it answers: a cut-short body fails several streams at once.
    const fail = (err: ApiError | (() => ApiError)) => {
      if (settled) return;
      settled = true;
      discard();
      body.unpipe(bb);
      body.resume();
      reject(typeof err === "function" ? err() : err);
    };
    const malformed = () => badRequest("multipart body is malformed or cut short");
    // A body that failed before it was read (bytes that do not inflate, the body deadline)
    // will emit nothing more.
    if (body.destroyed) {
      fail(body.errored instanceof ApiError ? body.errored : badRequest("the upload could not be read"));
      return;
    }
    let total = 0;
    body.on("data", (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit + MULTIPART_OVERHEAD) fail(overLimit);
    });
    body.on("error", (err) =>
      fail(err instanceof ApiError ? err : badRequest("the upload could not be read")),
    );
    bb.on("file", (name, stream) => {
      // A file part after the failure, or not the one we want, is read and dropped.
      stream.on("error", () => fail(malformed));
      if (name !== "file" || settled || got) {
        stream.resume();
        return;
      }
      const tmpPath = join(tmpDir, randomUUID());
      const hash = createHash("sha256");
      const head: Buffer[] = [];
      let size = 0;
      // A small file is held in memory and written once it has ended, so a body cut short or
      // refused within its first SPILL_BYTES never touches the disk (four file operations
      // fewer for each of a hostile client's truncated uploads); a larger one streams to disk.
      const held: Buffer[] = [];
      let out: WriteStream | undefined;
      const stored = () => ({
        tmpPath,
        hash: hash.digest("hex"),
        size,
        head: new Uint8Array(Buffer.concat(head)),
      });
      const cannotStore = () => new ApiError("internal", "the upload could not be stored");
      let ok!: (r: ReceivedFile) => void;
      let no!: (err: ApiError) => void;
      got = new Promise((resolve, reject) => {
        ok = resolve;
        no = reject;
      });
      // Refusals are answered by `fail`; this only keeps the promise from going unhandled.
      got.catch(() => undefined);
      stream.on("data", (chunk: Buffer) => {
        hash.update(chunk);
        if (size < headBytes) head.push(chunk.subarray(0, headBytes - size));
        size += chunk.length;
        if (out) return;
        held.push(chunk);
        if (size <= SPILL_BYTES || settled) return;
        out = createWriteStream(tmpPath);
        written = { out, tmpPath };
        out.on("finish", () => ok(stored()));
        out.on("error", () => no(cannotStore()));
        for (const c of held.splice(0)) out.write(c);
        stream.pipe(out);
      });
      stream.on("end", () => {
        if (out || settled) return;
        writeFile(tmpPath, Buffer.concat(held)).then(
          () => {
            // Refused while the file was written: nothing else will remove it.
            if (settled) void rm(tmpPath, { force: true });
            else {
              written = { tmpPath };
              ok(stored());
            }
          },
          () => no(cannotStore()),
        );
      });
      stream.on("limit", () => fail(overLimit));
    });
    bb.on("error", () => fail(malformed));
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

/**
 * A multipart upload as the blob use case takes it: the least the file can weigh (the declared
 * body length less the multipart overhead) and a way to receive it within the limits it sets.
 */
export function multipartFileUpload(source: MultipartSource): FileUpload {
  const declared = Number(source.headers["content-length"]);
  return {
    minBytes: Number.isFinite(declared) ? Math.max(0, declared - MULTIPART_OVERHEAD) : 0,
    receive: (limits) => receive(source, limits),
  };
}
