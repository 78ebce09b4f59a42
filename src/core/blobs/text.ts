// Text may hold TAB, LF, VT, FF, CR and ESC (ANSI colours); other C0 controls mean binary.
const ALLOWED_CONTROLS = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b]);
// JSON.parse of a very large body is not worth the time it takes just to name a type.
const MAX_JSON_BYTES = 4 << 20;

/**
 * True for non-empty valid UTF-8 without NULs or stray control bytes. A multi-byte
 * character cut at the end of a head is tolerated (streamed decoding keeps it pending).
 */
function looksLikeText(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false;
  for (const byte of bytes) if (byte < 0x20 && !ALLOWED_CONTROLS.has(byte)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** True when the whole of `bytes` is a JSON object or array. */
function looksLikeJson(bytes: Uint8Array): boolean {
  if (bytes.length > MAX_JSON_BYTES) return false;
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null;
  } catch {
    return false;
  }
}

/** `application/json`, `text/plain`, or undefined for binary. JSON is judged on `whole` when given. */
export function textMime(head: Uint8Array, whole?: Uint8Array): string | undefined {
  if (!looksLikeText(head)) return undefined;
  return looksLikeJson(whole ?? head) ? "application/json" : "text/plain";
}
