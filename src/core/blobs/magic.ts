import { startsWith } from "./bytes.js";

/** A ZIP archive: a local header, or the end record of an empty archive. */
export const isZip = (bytes: Uint8Array) =>
  startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06]);

export const isPng = (bytes: Uint8Array) =>
  startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** gzip with the deflate method, the only one defined. */
export const isGzip = (bytes: Uint8Array) => startsWith(bytes, [0x1f, 0x8b, 0x08]);

const PDF_HEADER = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"

/** Readers accept the PDF header anywhere in the first kilobyte, so a disguised PDF may start late. */
export function isPdf(bytes: Uint8Array): boolean {
  const window = Math.min(bytes.length, 1024);
  for (let at = 0; at < window; at++) if (startsWith(bytes, PDF_HEADER, at)) return true;
  return false;
}
