// Byte and text conversions on Uint8Array: what the verifier needs of Node's byte buffers, written so
// the same code runs in browsers (vcon-archivist/verify reaches no `node:` module and no Buffer).

const encoder = new TextEncoder();

/** UTF-8 bytes of a string. */
export const utf8 = (text: string): Uint8Array => encoder.encode(text);

// Hex by table: a leaf's hashes are written and read as hex for every record the committer takes,
// and per-byte toString/parseInt cost several times Node's native hex there.
const HEX_PAIRS = Array.from({ length: 256 }, (_, i) => (i < 16 ? "0" : "") + i.toString(16));
// Each character's hex value; 255 for a character that is not a hex digit.
const HEX_VALUE = new Uint8Array(128).fill(255);
for (let i = 0; i < 16; i++) {
  HEX_VALUE["0123456789abcdef".charCodeAt(i)] = i;
  HEX_VALUE["0123456789ABCDEF".charCodeAt(i)] = i;
}

/** Lower-case hex. */
export function toHex(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += HEX_PAIRS[bytes[i] as number] as string;
  return s;
}

/** Bytes of a hex string; stops at the first pair that is not hex, as Node's hex decoding does. */
export function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >>> 1);
  for (let i = 0; i < out.length; i++) {
    const a = hex.charCodeAt(2 * i);
    const b = hex.charCodeAt(2 * i + 1);
    const hi = a < 128 ? (HEX_VALUE[a] as number) : 255;
    const lo = b < 128 ? (HEX_VALUE[b] as number) : 255;
    if (hi === 255 || lo === 255) return out.slice(0, i);
    out[i] = (hi << 4) | lo;
  }
  return out;
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
// Both alphabets decode (base64 and base64url); anything else is 255.
const DECODE = new Uint8Array(256).fill(255);
for (let i = 0; i < 64; i++) DECODE[ALPHABET.charCodeAt(i)] = i;
DECODE["-".charCodeAt(0)] = 62;
DECODE["_".charCodeAt(0)] = 63;

/** Standard base64 with padding. */
export function toBase64(bytes: Uint8Array): string {
  let s = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    s += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]! + ALPHABET[(n >>> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    s += `${ALPHABET[n >>> 18]!}${ALPHABET[(n >>> 12) & 63]!}==`;
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    s += `${ALPHABET[n >>> 18]!}${ALPHABET[(n >>> 12) & 63]!}${ALPHABET[(n >>> 6) & 63]!}=`;
  }
  return s;
}

/** base64url without padding (RFC 4648 §5), as JWKs carry coordinates. */
export const toBase64url = (bytes: Uint8Array): string =>
  toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** Bytes of base64 or base64url text, padded or not; throws on characters of neither alphabet. */
export function fromBase64(text: string): Uint8Array {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61) end--; // "="
  if (end % 4 === 1) throw new TypeError("base64 text of an impossible length");
  const out = new Uint8Array((end * 3) >>> 2);
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const v = c < 256 ? (DECODE[c] as number) : 255;
    if (v === 255) throw new TypeError(`not base64: ${JSON.stringify(text.slice(0, 40))}`);
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >>> bits) & 0xff;
    }
  }
  return out;
}

/** Bytewise order, as Node's compare orders bytes. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Byte equality. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The parts, one after the other, in a new array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** An unsigned 64-bit big-endian integer. */
export function u64be(value: bigint | number): Uint8Array {
  const out = new Uint8Array(8);
  // An MMR position per interior node: a safe integer is written in two halves, without a BigInt
  // and a DataView made for it.
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) {
    const high = Math.floor(value / 2 ** 32);
    const low = value % 2 ** 32;
    out[1] = (high >>> 16) & 0xff;
    out[2] = (high >>> 8) & 0xff;
    out[3] = high & 0xff;
    out[4] = low >>> 24;
    out[5] = (low >>> 16) & 0xff;
    out[6] = (low >>> 8) & 0xff;
    out[7] = low & 0xff;
    return out;
  }
  new DataView(out.buffer).setBigUint64(0, BigInt(value), false);
  return out;
}
