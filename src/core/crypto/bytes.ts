// Byte and text conversions on Uint8Array: what the verifier needs of Node's byte buffers, written so
// the same code runs in browsers (vcon-archivist/verify reaches no `node:` module and no Buffer).

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** UTF-8 bytes of a string. */
export const utf8 = (text: string): Uint8Array => encoder.encode(text);

/** A string from UTF-8 bytes (invalid sequences replaced by U+FFFD). */
export const fromUtf8 = (bytes: Uint8Array): string => decoder.decode(bytes);

/** Lower-case hex. */
export function toHex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += (b < 16 ? "0" : "") + b.toString(16);
  return s;
}

/** Bytes of a hex string; stops at the first pair that is not hex, as Node's hex decoding does. */
export function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >>> 1);
  for (let i = 0; i < out.length; i++) {
    const b = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    if (Number.isNaN(b)) return out.slice(0, i);
    out[i] = b;
  }
  return out;
}

/** Standard base64 with padding. */
export function toBase64(bytes: Uint8Array): string {
  let s = "";
  // In slices, so a large input does not overflow fromCharCode's argument list.
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** base64url without padding (RFC 4648 §5), as JWKs carry coordinates. */
export const toBase64url = (bytes: Uint8Array): string =>
  toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** Bytes of base64 or base64url text, padded or not; throws on characters of neither alphabet. */
export function fromBase64(text: string): Uint8Array {
  const std = text.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  const bin = atob(std + "=".repeat((4 - (std.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
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
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
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
  new DataView(out.buffer).setBigUint64(0, BigInt(value), false);
  return out;
}
