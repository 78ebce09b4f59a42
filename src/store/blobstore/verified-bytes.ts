import { createHash } from "node:crypto";
import { type Readable, Transform } from "node:stream";
import { CodedError } from "../../formats/coded-error.js";

/** Bytes a store gave under a hash they do not have: the store (a bucket, a disk) was changed. */
class BlobBytesMismatch extends CodedError<"BLOB_BYTES_MISMATCH"> {
  readonly code = "BLOB_BYTES_MISMATCH";
  constructor(hash: string) {
    super(`the stored bytes of blob content ${hash} do not hash to it: refused`);
  }
}

/**
 * `source`, the whole object stored under `hash`, passed on as it streams (only `range` of it
 * when one is given) while it is hashed; the last bytes are held back until the hash is known,
 * so bytes that are not the blob never reach a reader whole: a mismatch ends the stream with
 * `BlobBytesMismatch`. A content-addressed store is checked the way an archived log object is
 * (period-archive.ts): the key says what the bytes must hash to.
 */
export function verifiedBytes(
  source: Readable,
  hash: string,
  range?: { start: number; end: number },
): Readable {
  const h = createHash("sha256");
  let offset = 0;
  let held: Buffer | undefined;
  const check = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      h.update(chunk);
      const from = range ? Math.max(0, range.start - offset) : 0;
      const to = range ? Math.min(chunk.length, range.end + 1 - offset) : chunk.length;
      offset += chunk.length;
      if (to > from) {
        if (held) this.push(held);
        held = chunk.subarray(from, to);
      }
      done();
    },
    flush(done) {
      if (h.digest("hex") !== hash) return done(new BlobBytesMismatch(hash));
      if (held) this.push(held);
      done();
    },
  });
  source.on("error", (err) => check.destroy(err));
  return source.pipe(check);
}

/** The bytes, when they hash to `hash`; else `BlobBytesMismatch`. */
export function checkedBytes(bytes: Uint8Array, hash: string): Uint8Array {
  if (createHash("sha256").update(bytes).digest("hex") !== hash) throw new BlobBytesMismatch(hash);
  return bytes;
}
