import type { AttributeFilter } from "../core/filters/index.js";
import type { Where } from "./sql.js";

/**
 * Adds a dotted query filter over the jsonb column of its prefix. Equality uses
 * containment (`@>`), which the GIN (jsonb_path_ops) indexes serve, so filtered lists
 * stay index-backed at any size; it matches string values, which is what attributes hold.
 */
export function addAttributeFilter(w: Where, f: AttributeFilter, column: string): void {
  const text = (name: string) => `coalesce(${column}->>${w.p(name)}, '')`;
  if (f.kind === "missing") {
    w.and(`${text(f.name)} = ''`);
    return;
  }
  const alternatives = f.values.map((v) => `${column} @> ${w.p(JSON.stringify({ [f.name]: v }))}::jsonb`);
  if (f.present) alternatives.push(`${text(f.name)} <> ''`);
  w.and(alternatives.join(" or "));
}
