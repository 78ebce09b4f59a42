import type { PolicyCondition, PolicyFilter } from "./policy-filter.js";
import { type SqlFragment, SqlParams } from "./sql-params.js";

/**
 * SQL twin of `matchPolicyFilters` over a jsonb attributes column (`true` when there are no
 * filters). Attribute names and values are parameters.
 */
export function compilePolicyFilters(
  filters: readonly PolicyFilter[],
  attributesColumnSql: string,
  firstParam: number,
): SqlFragment {
  const params = new SqlParams(firstParam);
  const groups = filters.map(
    (f) => `(${f.or.map((c) => compileCondition(c, attributesColumnSql, params)).join(" OR ")})`,
  );
  return { sql: groups.length ? groups.join(" AND ") : "true", params: params.values };
}

function compileCondition(c: PolicyCondition, col: string, params: SqlParams): string {
  const text = `(${col}->>${params.add(c.name)}::text)`;
  switch (c.op) {
    case "eq":
      return `(${text} = ${params.add(c.value)}::text)`;
    case "ne":
      return `(${text} IS DISTINCT FROM ${params.add(c.value)}::text)`;
    case "present":
      return `(coalesce(${text}, '') <> '')`;
    case "absent":
      return `(coalesce(${text}, '') = '')`;
  }
}
