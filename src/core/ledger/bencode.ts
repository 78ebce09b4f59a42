/** A value bencode can carry: text, whole numbers, lists and maps (no null, booleans or floats). */
export type Bencodable = string | number | bigint | Uint8Array | Bencodable[] | { [key: string]: Bencodable };

export class BencodeError extends Error {
  readonly code = "BENCODE";
}

const enc = new TextEncoder();

function push(out: Uint8Array[], value: unknown, path: string): void {
  if (typeof value === "string")
    return void out.push(enc.encode(`${enc.encode(value).length}:`), enc.encode(value));
  if (value instanceof Uint8Array) return void out.push(enc.encode(`${value.length}:`), value);
  if (typeof value === "bigint" || (typeof value === "number" && Number.isSafeInteger(value)))
    return void out.push(enc.encode(`i${value.toString()}e`));
  if (Array.isArray(value)) {
    out.push(enc.encode("l"));
    for (const [i, v] of value.entries()) push(out, v, `${path}[${i}]`);
    return void out.push(enc.encode("e"));
  }
  if (value !== null && typeof value === "object") {
    // Keys sorted by their raw UTF-8 bytes, as the format requires.
    const keys = Object.keys(value).sort((a, b) => Buffer.compare(enc.encode(a), enc.encode(b)));
    out.push(enc.encode("d"));
    for (const k of keys) {
      push(out, k, path);
      push(out, (value as Record<string, unknown>)[k], `${path}.${k}`);
    }
    return void out.push(enc.encode("e"));
  }
  throw new BencodeError(`${path || "value"} cannot be bencoded (${value === null ? "null" : typeof value})`);
}

/** BitTorrent bencode of a value. */
export function bencode(value: unknown): Uint8Array {
  const out: Uint8Array[] = [];
  push(out, value, "");
  return new Uint8Array(Buffer.concat(out));
}
