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

/** The temporary file, once it exists (`out` while it is being written). */
interface Written {
  out?: WriteStream;
  tmpPath: string;
}

const malformed = () => badRequest("multipart body is malformed or cut short");
const cannotStore = () => new ApiError("internal", "the upload could not be stored");

/** The hash, size and first `headBytes` bytes of a file part, kept as its chunks pass. */
class PartDigest {
  private readonly hash = createHash("sha256");
  private readonly head: Buffer[] = [];
  size = 0;

  constructor(private readonly headBytes: number) {}

  update(chunk: Buffer): void {
    this.hash.update(chunk);
    if (this.size < this.headBytes) this.head.push(chunk.subarray(0, this.headBytes - this.size));
    this.size += chunk.length;
  }

  received(tmpPath: string): ReceivedFile {
    return {
      tmpPath,
      hash: this.hash.digest("hex"),
      size: this.size,
      head: new Uint8Array(Buffer.concat(this.head)),
    };
  }
}

/** What a file part needs of the body it came in. */
interface PartOwner {
  /** Whether the body has been answered already (refused, most often). */
  readonly settled: boolean;
  /** Keeps the temporary file once it exists, so that a refusal removes it. */
  wrote(file: Written): void;
}

/**
 * Receives the `file` part into a temporary file in `tmpDir`. A small file is held in memory and
 * written once it has ended, so a body cut short or refused within its first SPILL_BYTES never
 * touches the disk (four file operations fewer for each of a hostile client's truncated
 * uploads); a larger one streams to disk. Settles once the file is whole on disk, or could not be.
 */
function receivePart(
  stream: Readable,
  owner: PartOwner,
  { tmpDir, headBytes }: FileLimits,
): Promise<ReceivedFile> {
  const tmpPath = join(tmpDir, randomUUID());
  const digest = new PartDigest(headBytes);
  return new Promise((ok, no) => {
    const held: Buffer[] = [];
    let out: WriteStream | undefined;
    stream.on("data", (chunk: Buffer) => {
      digest.update(chunk);
      if (out) return;
      held.push(chunk);
      if (digest.size <= SPILL_BYTES || owner.settled) return;
      out = createWriteStream(tmpPath);
      owner.wrote({ out, tmpPath });
      out.on("finish", () => ok(digest.received(tmpPath)));
      out.on("error", () => no(cannotStore()));
      for (const c of held.splice(0)) out.write(c);
      stream.pipe(out);
    });
    stream.on("end", () => {
      if (out || owner.settled) return;
      writeFile(tmpPath, Buffer.concat(held)).then(
        () => {
          // Refused while the file was written: nothing else will remove it.
          if (owner.settled) void rm(tmpPath, { force: true });
          else {
            owner.wrote({ tmpPath });
            ok(digest.received(tmpPath));
          }
        },
        () => no(cannotStore()),
      );
    });
  });
}

/**
 * One multipart body being received: the first failure of any stream answers, and whatever
 * was written of the file is removed. Kept as one object because the body, busboy and the file
 * part all report to the same answer.
 */
class Reception implements PartOwner {
  settled = false;
  private got: Promise<ReceivedFile> | undefined;
  private written: Written | undefined;

  constructor(
    private readonly body: Readable,
    private readonly bb: busboy.Busboy,
    private readonly limits: FileLimits,
    private readonly resolve: (r: ReceivedFile) => void,
    private readonly reject: (err: ApiError) => void,
  ) {}

  start(): void {
    // A body that failed before it was read (bytes that do not inflate, the body deadline)
    // will emit nothing more.
    if (this.body.destroyed) {
      const err = this.body.errored;
      this.fail(err instanceof ApiError ? err : badRequest("the upload could not be read"));
      return;
    }
    this.watchBody();
    this.bb.on("file", (name: string, stream: Readable) => this.onFile(name, stream));
    this.bb.on("error", () => this.fail(malformed));
    this.bb.on("close", () => this.onClose());
    this.body.pipe(this.bb);
  }

  wrote(file: Written): void {
    this.written = file;
  }

  /** The body's own faults: too many bytes, a read error, a client gone away mid-upload. */
  private watchBody(): void {
    const { body, limits } = this;
    let total = 0;
    body.on("data", (chunk: Buffer) => {
      total += chunk.length;
      if (total > limits.limit + MULTIPART_OVERHEAD) this.fail(limits.overLimit);
    });
    body.on("error", (err) =>
      this.fail(err instanceof ApiError ? err : badRequest("the upload could not be read")),
    );
    // A client that goes away mid-upload: busboy never closes, so the partial file goes here.
    let ended = false;
    body.once("end", () => {
      ended = true;
    });
    body.on("close", () => {
      if (!ended) this.fail(badRequest("the upload was cut short"));
    });
  }

  private onFile(name: string, stream: Readable): void {
    // A file part after the failure, or not the one we want, is read and dropped.
    stream.on("error", () => this.fail(malformed));
    if (name !== "file" || this.settled || this.got) {
      stream.resume();
      return;
    }
    this.got = receivePart(stream, this, this.limits);
    // Refusals are answered by `fail`; this only keeps the promise from going unhandled.
    this.got.catch(() => undefined);
    stream.on("limit", () => this.fail(this.limits.overLimit));
  }

  /** Busboy has read the whole body: the answer is the file part's, once it is on disk. */
  private onClose(): void {
    if (this.settled) return;
    if (!this.got) {
      this.fail(badRequest("multipart body has no part named file"));
      return;
    }
    this.got.then(
      (r) => {
        if (this.settled) void rm(r.tmpPath, { force: true });
        else {
          this.settled = true;
          this.resolve(r);
        }
      },
      (err: ApiError) => this.fail(err),
    );
  }

  /**
   * The first failure answers; the body is then drained unread so the answer can be sent. A
   * refusal is made only if it answers: a cut-short body fails several streams at once.
   */
  private fail(err: ApiError | (() => ApiError)): void {
    if (this.settled) return;
    this.settled = true;
    this.discard();
    this.body.unpipe(this.bb);
    this.body.resume();
    this.reject(typeof err === "function" ? err() : err);
  }

  /** Drops the partial file, once closed: an rm racing the pending open would leave it behind. */
  private discard(): void {
    if (!this.written) return;
    const { out, tmpPath } = this.written;
    this.written = undefined;
    if (!out || out.closed) void rm(tmpPath, { force: true });
    else {
      out.once("close", () => void rm(tmpPath, { force: true }));
      out.destroy();
    }
  }
}

/** Busboy for the body, reading one file part; undefined when the headers are no multipart body's. */
function multipartParser(source: MultipartSource, limit: number): busboy.Busboy | undefined {
  try {
    // busboy reports `limit` once a file reaches fileSize bytes: one more lets exactly `limit` through.
    return busboy({
      headers: source.headers,
      limits: { files: 1, fileSize: Math.max(0, limit) + 1, fields: 10, parts: 20 },
    });
  } catch {
    return undefined;
  }
}

/**
 * Streams the `file` part to a temporary file in `tmpDir`, hashing it and keeping its first
 * `headBytes` bytes as it goes; aborts past `limit` file bytes or `limit` plus the multipart
 * overhead in body bytes. Every stream involved has an error path: a
 * truncated or malformed body, a client gone away, a full disk each end in a refusal (never
 * an unhandled `error` event), and the partial file is removed.
 */
function receive(source: MultipartSource, limits: FileLimits): Promise<ReceivedFile> {
  return new Promise((resolve, reject) => {
    const bb = multipartParser(source, limits.limit);
    if (!bb) {
      source.stream.resume();
      reject(badRequest("body must be multipart/form-data with a part named file"));
      return;
    }
    new Reception(source.stream, bb, limits, resolve, reject).start();
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
