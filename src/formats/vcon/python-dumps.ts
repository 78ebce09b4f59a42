import { JsonNumber, type LosslessJson } from "./lossless-json.js";

const SAFE = /^[\x20-\x7e]*$/;
const NEEDS_ESCAPE = /["\\]/;
const SHORT: Record<number, string> = {
  34: '\\"',
  92: "\\\\",
  10: "\\n",
  13: "\\r",
  9: "\\t",
  8: "\\b",
  12: "\\f",
};

/** A string as Python's json.dumps writes it with ensure_ascii=True (the default). */
export function pythonString(s: string): string {
  if (SAFE.test(s) && !NEEDS_ESCAPE.test(s)) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const short = SHORT[c];
    if (short) out += short;
    // Python escapes everything outside space..tilde, one UTF-16 unit at a time (astral: surrogate pairs).
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += s[i];
  }
  return `${out}"`;
}

/** repr() of a Python float: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mantissa = "0", exp = "0"] = Math.abs(x).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const e = Number(exp);
  if (e >= -4 && e < 16) {
    if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
    const whole = digits.slice(0, e + 1).padEnd(e + 1, "0");
    return `${sign}${whole}.${digits.slice(e + 1) || "0"}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
}

/** A JSON number as Python would re-serialise it after json.loads: ints exact, floats by repr. */
function pythonNumber(n: JsonNumber): string {
  if (n.isInteger) return BigInt(n.lexeme).toString();
  return pythonFloatRepr(n.toNumber());
}

/** Python `json.dumps(value)` with default arguments (", " and ": " separators, ASCII only, order kept). */
export function pythonDumps(v: LosslessJson): string {
  if (v === null) return "null";
  if (v === true) return "true";
  if (v === false) return "false";
  if (typeof v === "string") return pythonString(v);
  if (v instanceof JsonNumber) return pythonNumber(v);
  if (Array.isArray(v)) return `[${v.map(pythonDumps).join(", ")}]`;
  const parts: string[] = [];
  for (const [k, item] of v) parts.push(`${pythonString(k)}: ${pythonDumps(item)}`);
  return `{${parts.join(", ")}}`;
}
