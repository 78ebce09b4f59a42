import type { Row } from "./results.js";

/** A number as the tables print it (thousands separated), or n/a. */
export function num(v: number | null | undefined): string {
  if (v === null || v === undefined) return "n/a";
  if (!Number.isFinite(v)) return String(v);
  return Number.isInteger(v) ? v.toLocaleString("en-US") : String(v);
}

/** Renders rows as a fixed-width text table: scenario, metric, value, unit, limit, ratio, note. */
export function formatTable(rows: Row[]): string {
  const header = ["scenario", "metric", "value", "unit", "limit", "ratio", "note"];
  const cells = rows.map((r) => [
    r.scenario,
    r.metric,
    num(r.value),
    r.unit,
    r.limit === undefined ? "" : `${num(r.limit)} (${r.limitLabel ?? ""})`,
    r.ratio === undefined ? "" : r.ratio.toFixed(2),
    // The JSON keeps the whole note; the table keeps lines readable.
    (r.note ?? "").length > 110 ? `${(r.note ?? "").slice(0, 109)}…` : (r.note ?? ""),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? "").length)));
  const right = new Set([2, 5]);
  const line = (c: string[]) =>
    c
      .map((s, i) => (right.has(i) ? s.padStart(widths[i] ?? 0) : s.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}
