import { inflateRawSync } from "node:zlib";
import { BlobFormatError } from "./blob-format-error.js";
import { view } from "./bytes.js";
import { isOutputCapError } from "./inflate-limit.js";
import type { ZipEntry } from "./zip-directory.js";

const LOCAL_SIGNATURE = 0x04034b50;
const ENCRYPTED = 0x1;

/** The compressed bytes of an entry, located through its local header. */
function entryData(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  const data = view(bytes);
  const at = entry.localOffset;
  if (at + 30 > bytes.length || data.getUint32(at, true) !== LOCAL_SIGNATURE) {
    throw new BlobFormatError("zip_malformed", `local header of ${entry.name} is missing`);
  }
  const start = at + 30 + data.getUint16(at + 26, true) + data.getUint16(at + 28, true);
  if (start + entry.compressedSize > bytes.length) {
    throw new BlobFormatError("zip_malformed", `entry ${entry.name} is truncated`);
  }
  return bytes.subarray(start, start + entry.compressedSize);
}

/**
 * The uncompressed bytes of a stored or deflated entry. Output is capped at the declared
 * size (plus one byte to notice a lie), so an entry that claims little and inflates to a lot
 * fails with `inflate_limit` instead of exhausting memory.
 */
export function inflateEntry(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  if (entry.flags & ENCRYPTED) throw new BlobFormatError("zip_encrypted", `entry ${entry.name} is encrypted`);
  const raw = entryData(bytes, entry);
  if (entry.method === 0) return raw;
  if (entry.method !== 8) {
    throw new BlobFormatError(
      "zip_unsupported",
      `entry ${entry.name} uses compression method ${entry.method}`,
    );
  }
  let out: Uint8Array;
  try {
    out = inflateRawSync(raw, { maxOutputLength: entry.uncompressedSize + 1 });
  } catch (error) {
    if (isOutputCapError(error)) {
      throw new BlobFormatError("inflate_limit", `entry ${entry.name} inflates beyond its declared size`);
    }
    throw new BlobFormatError("inflate_corrupt", `entry ${entry.name} does not inflate`);
  }
  if (out.length > entry.uncompressedSize) {
    throw new BlobFormatError("inflate_limit", `entry ${entry.name} inflates beyond its declared size`);
  }
  return out;
}
