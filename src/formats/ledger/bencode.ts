import { CodedError } from "../coded-error.js";
import { compareBytes, concatBytes, utf8 } from "../crypto/bytes.js";

class BencodeError extends CodedError<"BENCODE"> {
  readonly code = "BENCODE";
}

// Any UTF-16 unit above 0x7f (surrogates included).
const NON_ASCII = /[\u0080-\uffff]/;
const isAscii = (s: string) => !NON_ASCII.test(s);

/** Keys in raw UTF-8 byte order; for ASCII keys that is plain string order (the fast, common case). */
function sortKeys(keys: string[]): string[] {
  if (keys.every(isAscii)) return keys.sort();
  return keys.sort((a, b) => compareBytes(utf8(a), utf8(b)));
}

/** UTF-8 length of a string, as TextEncoder would write it (a lone surrogate as U+FFFD, 3 bytes). */
function utf8Length(s: string): number {
  // Most text here is ASCII: one native scan says so, where the loop below reads each unit in JS.
  if (isAscii(s)) return s.length;
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

/** Past this many keys a map's keys are sorted by the engine, not by insertion. */
const FEW_KEYS = 16;

/**
 * A map's own keys whose values are not null, in plain string order. A leaf encodes three or four
 * small maps (attributes, principals); listed, filtered and sorted by the engine, their keys cost
 * two arrays and a sort's scratch each, most of the encoder's allocation under ingest, and ~1.7
 * times this one array sorted by insertion. Many keys (attributes are the caller's) go to the
 * engine's sort, whose time does not grow with the square of their number.
 */
function presentKeysInOrder(map: Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const key in map) if (Object.hasOwn(map, key) && map[key] !== null) keys.push(key);
  if (keys.length > FEW_KEYS) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i;
    for (; j > 0 && (keys[j - 1] as string) > key; j--) keys[j] = keys[j - 1] as string;
    keys[j] = key;
  }
  return keys;
}

/**
 * `s` followed by the bencode of `value` as text, or undefined when the value holds a byte string
 * or something bencode cannot write (the chunked writer above then encodes it, or says where it
 * failed). One string grown by appending, with no path built per key: a committed event's leaf is
 * encoded with it, and an array of chunks joined at the end cost about a fifth more. Not `exact`,
 * every string is taken for ASCII (its length its byte count, keys in plain order): right when the
 * whole text is ASCII, which one test of it says, where testing each string cost a leaf ~15 %.
 */
function appendText(s: string, value: unknown, exact: boolean): string | undefined {
  if (typeof value === "string") return `${s}${exact ? utf8Length(value) : value.length}:${value}`;
  if (typeof value === "number") return Number.isSafeInteger(value) ? `${s}i${value}e` : undefined;
  if (typeof value === "bigint") return `${s}i${value}e`;
  if (value === null || typeof value !== "object" || value instanceof Uint8Array) return undefined;
  let out: string | undefined;
  if (Array.isArray(value)) {
    out = `${s}l`;
    for (const v of value) {
      out = appendText(out, v, exact);
      if (out === undefined) return undefined;
    }
    return `${out}e`;
  }
  const map = value as Record<string, unknown>;
  const keys = presentKeysInOrder(map);
  // ASCII keys (nearly all) are their own length in bytes, and sort as plain strings.
  const ascii = !exact || keys.every(isAscii);
  if (!ascii) sortKeys(keys);
  out = `${s}d`;
  for (const k of keys) {
    out = appendText(`${out}${ascii ? k.length : utf8Length(k)}:${k}`, map[k], exact);
    if (out === undefined) return undefined;
  }
  return `${out}e`;
}

/**
 * `prefix` followed by the bencode of a value holding no byte string, as text whose UTF-8 is the
 * encoding; undefined for any other value (`bencode` encodes those, or throws saying where).
 * With `exact` false every string is taken for ASCII: the text is the encoding only if it is
 * all ASCII (`isAsciiText`), else it must be made again exactly.
 */
export function bencodeText(prefix: string, value: unknown, exact = true): string | undefined {
  return appendText(prefix, value, exact);
}

/** Whether a text holds only ASCII: then each of its strings' lengths is its byte count. */
export const isAsciiText = isAscii;

/** BitTorrent bencode of a value; null map values are left out (bencode has no null). */
export function bencode(value: unknown): Uint8Array {
  const text = appendText("", value, false);
  if (text !== undefined) return utf8(isAscii(text) ? text : (appendText("", value, true) as string));
  const out: Array<string | Uint8Array> = [];
  write(out, value, "");
  if (out.every((p) => typeof p === "string")) return utf8(out.join(""));
  return concatBytes(out.map((p) => (typeof p === "string" ? utf8(p) : p)));
}
