// A commit batch sends a few hundred values per column in one statement. node-postgres writes an
// array parameter element by element in JavaScript (quoting and escaping each, and every bytea
// as quoted hex); these hand it one string or one buffer per column instead, which PostgreSQL
// parses or slices itself.

const HASH_BYTES = 32;
// Unquoted, `NULL` in any case is the null element.
const PLAIN = /^(?!null$)[\w.-]+$/i;

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
 * hex and other word characters. Anything else (a comma, a space, a brace, an empty string, the
 * word null, a number that is not a safe integer) is refused, since it would not read back as itself.
 */
export function plainArrayParam(values: ReadonlyArray<string | number>): string {
  // Each value tested alone: a test of the joined text must also count its commas, and the split
  // that counts them cost more than these tests.
  for (const v of values)
    if (typeof v === "number" ? !Number.isSafeInteger(v) : !PLAIN.test(v))
      throw new RangeError("an array element needs quoting");
  return `{${values.join(",")}}`;
}
