import type { RichnessOperator } from "./richness-assertion.js";

// Plain decimal numbers only: Number() would also take "", "0x1f" or "Infinity".
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** The finite number a string spells in decimal, or undefined. */
function finiteNumber(text: string): number | undefined {
  if (!DECIMAL.test(text.trim())) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

function order<T extends number | string>(left: T, operator: RichnessOperator, right: T): boolean {
  switch (operator) {
    case "=":
      return left === right;
    case "!=":
      return left !== right;
    case ">":
      return left > right;
    case "<":
      return left < right;
    case ">=":
      return left >= right;
    case "<=":
      return left <= right;
  }
}

/**
 * Compares numerically when both sides are finite decimal numbers (float equality is
 * exact: "1.0" = "1" holds, "0.1" = "0.10000001" does not), as strings otherwise.
 */
export function compareValues(actual: string, operator: RichnessOperator, expected: string): boolean {
  const left = finiteNumber(actual);
  const right = finiteNumber(expected);
  if (left !== undefined && right !== undefined) return order(left, operator, right);
  return order(actual, operator, expected);
}
