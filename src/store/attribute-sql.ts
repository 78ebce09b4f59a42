import type { Where } from "./sql.js";

/** One dotted query filter: `<prefix>.<name>=<v>` (any of values), `=*` present, `!=*` missing. */
export interface AttributeCondition {
  column: string;
  name: string;
  kind: "eq" | "present" | "missing";
  values: string[];
}

/**
 * Adds the condition over a jsonb column. Equality uses containment (`@>`), which the
 * GIN (jsonb_path_ops) indexes serve, so filtered lists stay index-backed at any size.
 */
export function addAttributeCondition(w: Where, c: AttributeCondition): void {
  const col = c.column;
  if (c.kind === "present") {
    w.and(`coalesce(${col}->>${w.p(c.name)}, '') <> ''`);
    return;
  }
  if (c.kind === "missing") {
    w.and(`coalesce(${col}->>${w.p(c.name)}, '') = ''`);
    return;
  }
  const alternatives = c.values.map((v) => `${col} @> ${w.p(JSON.stringify({ [c.name]: v }))}::jsonb`);
  w.and(alternatives.join(" or "));
}
