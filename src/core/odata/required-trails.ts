import type { ODataExpr } from "./ast.js";

/**
 * Trails of which every match of `expr` must carry at least one: those of a `trails/any`
 * that the filter requires outright (the filter itself, or a conjunct of its top-level `and`s).
 * A search can then look its candidates up in the trails index alone. Undefined when the
 * filter requires no trail (an `any` under `or` or `not` narrows nothing).
 */
export function requiredTrails(expr: ODataExpr): string[] | undefined {
  if (expr.kind === "any") return expr.values;
  if (expr.kind !== "and") return undefined;
  let narrowest: string[] | undefined;
  for (const item of expr.items) {
    const trails = requiredTrails(item);
    if (trails && (!narrowest || trails.length < narrowest.length)) narrowest = trails;
  }
  return narrowest;
}
