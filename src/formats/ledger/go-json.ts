import { compareBytes } from "../crypto/bytes.js";

const enc = new TextEncoder();
const ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

function goString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) as number;
    const esc = ESCAPES[ch];
    if (esc) out += esc;
    // Go escapes <, > and & for HTML safety, and U+2028/2029 for JavaScript.
    else if (code < 0x20 || ch === "<" || ch === ">" || ch === "&" || code === 0x2028 || code === 0x2029)
      out += `\\u${code.toString(16).padStart(4, "0")}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += "\ufffd";
    else out += ch;
  }
  return `${out}"`;
}

/** Go `encoding/json` Marshal of a JSON value: map keys sorted bytewise, no spaces, Go's escapes. */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return goString(value);
  if (typeof value === "number" || typeof value === "boolean") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(",")}]`;
  if (typeof value === "object") {
    const keys = Object.keys(value).sort((a, b) => compareBytes(enc.encode(a), enc.encode(b)));
    return `{${keys.map((k) => `${goString(k)}:${goJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  throw new TypeError(`cannot encode ${typeof value} as JSON`);
}
