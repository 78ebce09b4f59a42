// A commit batch sends a few hundred values per column in one statement. node-postgres writes an
// array parameter element by element in JavaScript (quoting and escaping each, and every bytea
// as quoted hex); these hand it one string or one buffer per column instead, which PostgreSQL
// parses or slices itself.

const HASH_BYTES = 32;
const PLAIN = /^[\w.-]+(?:,[\w.-]+)*$/;

/** SHA-256 hashes laid end to end, a binary bytea parameter: the statement slices it by 32 bytes. */
export function hashesParam(hashes: readonly Uint8Array[]): Buffer {
  const out = Buffer.allocUnsafe(hashes.length * HASH_BYTES);
  let at = 0;
  for (const h of hashes) {
    if (h.length !== HASH_BYTES) throw new RangeError(`a hash of ${h.length} bytes, not ${HASH_BYTES}`);
    out.set(h, at);
    at += HASH_BYTES;
  }
  return out;
}

/**
 * An array parameter's text literal (`{a,b,c}`) of values that need no quoting: numbers, uuids,
 * hex and other word characters. Anything else (a comma, a space, a brace, an empty string) is
 * refused, since it would parse as other elements than it was.
 */
export function plainArrayParam(values: ReadonlyArray<string | number>): string {
  if (values.length === 0) return "{}";
  const body = values.join(",");
  if (!PLAIN.test(body) || body.split(",").length !== values.length)
    throw new RangeError("an array element needs quoting");
  return `{${body}}`;
}
