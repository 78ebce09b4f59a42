const encoder = new TextEncoder();

/**
 * The text PostgreSQL's `jsonb ->> key` yields for a JSON value, so in-memory matching agrees
 * with SQL: strings as themselves, JSON null (or absence) as SQL NULL, other values as jsonb
 * prints them. Numbers use JavaScript's shortest form, which matches jsonb for every number
 * written without an exponent, trailing zeros or more than ~15 significant digits.
 */
export function jsonbText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value;
  return jsonbOut(value, 0);
}

/** The attribute `name` of `attributes` as `->>` text (own properties only). */
export function attributeText(
  attributes: Readonly<Record<string, unknown>> | undefined | null,
  name: string,
): string | null {
  if (!attributes || !Object.hasOwn(attributes, name)) return null;
  return jsonbText(attributes[name]);
}

// Depth is bounded because stored attributes come from bodies limited to 64 levels.
function jsonbOut(value: unknown, depth: number): string {
  if (depth > 256) throw new RangeError("value nested too deeply");
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (Array.isArray(value)) return `[${value.map((v) => jsonbOut(v, depth + 1)).join(", ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => jsonbKeyOrder(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${jsonbOut(v, depth + 1)}`).join(", ")}}`;
  }
  return "null";
}

/** jsonb stores object keys shorter first (in UTF-8 bytes), then bytewise. */
function jsonbKeyOrder(a: string, b: string): number {
  const ab = encoder.encode(a);
  const bb = encoder.encode(b);
  if (ab.length !== bb.length) return ab.length - bb.length;
  for (let i = 0; i < ab.length; i++) if (ab[i] !== bb[i]) return (ab[i] ?? 0) - (bb[i] ?? 0);
  return 0;
}

/** Orders two strings as PostgreSQL's "C" collation does (UTF-8 bytes, i.e. code points). */
export function compareCodePoints(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i) ?? 0;
    const cb = b.codePointAt(j) ?? 0;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  if (i < a.length) return 1;
  return j < b.length ? -1 : 0;
}
