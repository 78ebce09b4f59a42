import { CodedError } from "../api/coded-error.js";

class BencodeError extends CodedError<"BENCODE"> {
  readonly code = "BENCODE";
}

const isAscii = (s: string) => {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
};

/** Keys in raw UTF-8 byte order; for ASCII keys that is plain string order (the fast, common case). */
function sortKeys(keys: string[]): string[] {
  if (keys.every(isAscii)) return keys.sort();
  return keys.sort((a, b) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8")));
}

/**
 * Writes into `out` as JS text: every bencode token is text, and byte strings of UTF-8
 * text are that text, so one final UTF-8 encoding gives the exact bytes. Raw byte
 * strings (Uint8Array) are kept as separate chunks.
 */
function write(out: Array<string | Uint8Array>, value: unknown, path: string): void {
  if (typeof value === "string") {
    out.push(`${Buffer.byteLength(value, "utf8")}:`, value);
  } else if (value instanceof Uint8Array) {
    out.push(`${value.length}:`, value);
  } else if (typeof value === "bigint" || (typeof value === "number" && Number.isSafeInteger(value))) {
    out.push(`i${value.toString()}e`);
  } else if (Array.isArray(value)) {
    out.push("l");
    for (const [i, v] of value.entries()) write(out, v, `${path}[${i}]`);
    out.push("e");
  } else if (value !== null && typeof value === "object") {
    out.push("d");
    const map = value as Record<string, unknown>;
    // A null map value means "absent" (the API stores attributes set to null as sent): the
    // encoding leaves it out, so it hashes as the absent key does.
    for (const k of sortKeys(Object.keys(map).filter((key) => map[key] !== null))) {
      out.push(`${Buffer.byteLength(k, "utf8")}:`, k);
      write(out, map[k], `${path}.${k}`);
    }
    out.push("e");
  } else {
    throw new BencodeError(
      `${path || "value"} cannot be bencoded (${value === null ? "null" : typeof value})`,
    );
  }
}

/** BitTorrent bencode of a value; null map values are left out (bencode has no null). */
export function bencode(value: unknown): Uint8Array {
  const out: Array<string | Uint8Array> = [];
  write(out, value, "");
  if (out.every((p) => typeof p === "string")) return new Uint8Array(Buffer.from(out.join(""), "utf8"));
  return new Uint8Array(Buffer.concat(out.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : p))));
}
