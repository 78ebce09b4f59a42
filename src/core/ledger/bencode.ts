import { CodedError } from "../api/coded-error.js";
import { compareBytes, concatBytes, utf8 } from "../crypto/bytes.js";

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
  return keys.sort((a, b) => compareBytes(utf8(a), utf8(b)));
}

/** UTF-8 length of a string, as TextEncoder would write it (a lone surrogate as U+FFFD, 3 bytes). */
function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 2; // four bytes for the two UTF-16 units
        i++;
      } else n += 2;
    } else n += 2;
  }
  return n;
}

/**
 * Writes into `out` as JS text: every bencode token is text, and byte strings of UTF-8
 * text are that text, so one final UTF-8 encoding gives the exact bytes. Raw byte
 * strings (Uint8Array) are kept as separate chunks.
 */
function write(out: Array<string | Uint8Array>, value: unknown, path: string): void {
  if (typeof value === "string") {
    out.push(`${utf8Length(value)}:`, value);
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
      out.push(`${utf8Length(k)}:`, k);
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
  if (out.every((p) => typeof p === "string")) return utf8(out.join(""));
  return concatBytes(out.map((p) => (typeof p === "string" ? utf8(p) : p)));
}
