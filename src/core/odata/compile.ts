import type { SqlFragment } from "../filters/sql-params.js";
import { SqlParams } from "../filters/sql-params.js";
import type { ODataColumnMap, ODataExpr, ODataOp, ODataProperty } from "./ast.js";
import { columnTypeOf, isIntegerField } from "./properties.js";

const SQL_OP: Record<ODataOp, string> = { eq: "=", ne: "<>", gt: ">", ge: ">=", lt: "<", le: "<=" };

/**
 * Compiles a parsed filter to a parameterised SQL condition with placeholders from
 * `firstParam`. Every literal and attribute name is a parameter; only the caller's column
 * expressions appear in the text. The fragment may evaluate to NULL where it means false,
 * so use it positively (in WHERE or under AND), not under a caller's NOT.
 */
export function compileODataFilter(
  expr: ODataExpr,
  columns: ODataColumnMap,
  firstParam: number,
): SqlFragment {
  const params = new SqlParams(firstParam);
  return { sql: compile(expr, columns, params), params: params.values };
}

function compile(expr: ODataExpr, columns: ODataColumnMap, params: SqlParams): string {
  switch (expr.kind) {
    case "and":
    case "or":
      return `(${expr.items.map((e) => compile(e, columns, params)).join(expr.kind === "and" ? " AND " : " OR ")})`;
    case "not":
      // SQL's NOT of an unknown (NULL) is unknown; OData's comparison with a missing value
      // is false, so its negation must be true.
      return `(NOT coalesce(${compile(expr.item, columns, params)}, false))`;
    case "any": {
      // Array overlap is what the GIN index on the trails column serves.
      const list = expr.values.map((v) => `${params.add(v)}::text`).join(", ");
      return `(${column(columns, "trails")} && ARRAY[${list}]::text[])`;
    }
    case "compare":
      return compileCompare(expr, columns, params);
  }
}

function compileCompare(
  expr: Extract<ODataExpr, { kind: "compare" }>,
  columns: ODataColumnMap,
  params: SqlParams,
): string {
  const { target, op, value } = expr;
  const integer = target.kind === "field" && isIntegerField(target.field);
  const lhs =
    target.kind === "attribute"
      ? `(${column(columns, "attributes")}->>${params.add(target.name)}::text)`
      : column(columns, target.field);
  if (value === null) return `(${lhs} IS ${op === "eq" ? "" : "NOT "}NULL)`;
  if (integer && !/^-?[0-9]+$/.test(value))
    throw new TypeError(`integer filter value expected, got ${value}`);
  const rhs = `${params.add(value)}::${integer ? "bigint" : "text"}`;
  // OData `ne` holds when the value is missing; `IS DISTINCT FROM` says so, `<>` would not.
  if (op === "ne") return `(${lhs} IS DISTINCT FROM ${rhs})`;
  // Ordering compares code points (the "C" collation), whatever the database's default is.
  const collate = !integer && op !== "eq" ? ' COLLATE "C"' : "";
  return `(${lhs} ${SQL_OP[op]} ${rhs}${collate})`;
}

function column(columns: ODataColumnMap, property: ODataProperty): string {
  const c = columns[property];
  const expected = columnTypeOf(property);
  if (c.type !== expected)
    throw new TypeError(`column for ${property} must be of type ${expected}, not ${c.type}`);
  return c.sql;
}
