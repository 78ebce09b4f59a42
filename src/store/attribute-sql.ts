import type { AttributeFilter } from "../core/filters/index.js";
import type { Where } from "./sql.js";

const WHOLE = /^(0|-?[1-9][0-9]*)$/;

/**
 * Adds a dotted query filter over the jsonb column of its prefix. Equality uses
 * containment (`@>`), which the GIN (jsonb_path_ops) indexes serve, so filtered lists
 * stay index-backed at any size. It matches string values, and whole numbers (the one other
 * scalar an attribute may hold) written in their shortest form.
 *
 * `indexed: false` writes containment as `jsonb_contains(…)`, the same test in a form no index
 * serves: for rows already found through another index (one asset's events), so that a plan
 * made without the values cannot choose the value index instead.
 */
export function addAttributeFilter(w: Where, f: AttributeFilter, column: string, indexed = true): void {
  const text = (name: string) => `coalesce(${column}->>${w.p(name)}, '')`;
  if (f.kind === "missing") {
    w.and(`${text(f.name)} = ''`);
    return;
  }
  const contains = (v: unknown) => {
    const value = `${w.p(JSON.stringify({ [f.name]: v }))}::jsonb`;
    return indexed ? `${column} @> ${value}` : `jsonb_contains(${column}, ${value})`;
  };
  const alternatives = f.values.flatMap((v) => {
    // `=7` finds 7 and "7".
    const n = WHOLE.test(v) ? Number(v) : Number.NaN;
    return Number.isSafeInteger(n) ? [contains(v), contains(n)] : [contains(v)];
  });
  if (f.present) alternatives.push(`${text(f.name)} <> ''`);
  w.and(alternatives.join(" or "));
}
