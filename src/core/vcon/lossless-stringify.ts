import { JsonNumber, type LosslessJson } from "../../formats/vcon/lossless-json.js";

/** Compact JSON of a lossless tree: key order and number lexemes as parsed, text as UTF-8. */
export function stringifyLossless(v: LosslessJson): string {
  if (v === null || typeof v === "boolean" || typeof v === "string") return JSON.stringify(v);
  if (v instanceof JsonNumber) return v.lexeme;
  if (Array.isArray(v)) return `[${v.map(stringifyLossless).join(",")}]`;
  const parts: string[] = [];
  for (const [k, item] of v) parts.push(`${JSON.stringify(k)}:${stringifyLossless(item)}`);
  return `{${parts.join(",")}}`;
}

/** Converts a plain JSON value (from JSON.parse or built in code) into a lossless tree. */
export function toLossless(v: unknown): LosslessJson {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") return new JsonNumber(Number.isFinite(v) ? JSON.stringify(v) : "null");
  if (Array.isArray(v)) return v.map(toLossless);
  if (typeof v === "object") {
    const m = new Map<string, LosslessJson>();
    for (const [k, item] of Object.entries(v)) if (item !== undefined) m.set(k, toLossless(item));
    return m;
  }
  return null;
}
