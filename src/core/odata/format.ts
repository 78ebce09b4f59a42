import type { ODataExpr } from "./ast.js";
import { isIntegerField } from "./properties.js";

const NAME = /^[\p{L}_][\p{L}\p{N}_.-]*$/u;

/** Writes a filter back as OData text that parses to the same AST (for logs and page tokens). */
export function formatODataFilter(expr: ODataExpr): string {
  switch (expr.kind) {
    case "and":
    case "or":
      return expr.items.map(nested).join(` ${expr.kind} `);
    case "not":
      return `not ${nested(expr.item)}`;
    case "any":
      return `trails/any(t: ${expr.values.map((v) => `t eq ${quote(v)}`).join(" or ")})`;
    case "compare": {
      const { target, op, value } = expr;
      if (target.kind === "attribute" && !NAME.test(target.name))
        throw new RangeError("attribute name cannot be written in OData syntax");
      const name = target.kind === "attribute" ? `attributes/${target.name}` : target.field;
      const integer = target.kind === "field" && isIntegerField(target.field);
      const literal = value === null ? "null" : integer ? value : quote(value);
      return `${name} ${op} ${literal}`;
    }
  }
}

function nested(expr: ODataExpr): string {
  const text = formatODataFilter(expr);
  return expr.kind === "and" || expr.kind === "or" ? `(${text})` : text;
}

function quote(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
