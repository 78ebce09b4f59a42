/** A DataView over exactly the bytes of a Uint8Array (which may be a window on a larger buffer). */
export function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** True when `bytes` holds `prefix` at `offset`. */
export function startsWith(bytes: Uint8Array, prefix: readonly number[], offset = 0): boolean {
  if (offset + prefix.length > bytes.length) return false;
  return prefix.every((byte, i) => bytes[offset + i] === byte);
}

/** Index of `needle` in `bytes` from `from`, or -1. */
export function indexOf(bytes: Uint8Array, needle: Uint8Array, from = 0): number {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(needle, from);
}

const latin1 = new TextDecoder("latin1");

/** Bytes as Latin-1 text: one character per byte, never fails, for searching ASCII markers. */
export function asciiText(bytes: Uint8Array): string {
  return latin1.decode(bytes);
}
