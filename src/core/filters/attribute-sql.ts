import type { AttributeFilter } from "./attribute-filter.js";
import { type SqlFragment, SqlParams } from "./sql-params.js";

/**
 * Compiles attribute filters to one parameterised condition (`true` when there are none).
 * `columnFor` gives the jsonb column expression of a prefix; names and values are parameters.
 */
export function compileAttributeFilters(
  filters: readonly AttributeFilter[],
  columnFor: (prefix: string) => string,
  firstParam: number,
): SqlFragment {
  const params = new SqlParams(firstParam);
  const parts = filters.map((f) => compileOne(f, columnFor(f.prefix), params));
  return { sql: parts.length ? parts.join(" AND ") : "true", params: params.values };
}

function compileOne(f: AttributeFilter, col: string, params: SqlParams): string {
  const text = `(${col}->>${params.add(f.name)}::text)`;
  if (f.kind === "missing") return `(coalesce(${text}, '') = '')`;
  const alternatives: string[] = [];
  if (f.values.length) alternatives.push(`${text} = ANY(${params.add([...f.values])}::text[])`);
  if (f.present) alternatives.push(`coalesce(${text}, '') <> ''`);
  // A match filter with neither values nor `*` cannot be built by the parser; match nothing.
  return alternatives.length ? `(${alternatives.join(" OR ")})` : "false";
}
