import type { ODataOp, ODataTarget } from "./ast.js";
import { describe, parseError, type Token } from "./lexer.js";
import { canonicalInt64, isIntegerField, isTextField, PROPERTY_NAMES } from "./properties.js";

/** Resolves a property path (`event_type`, `ledger_entry/index`, `attributes/<name>`). */
export function resolveTarget(path: readonly string[], pos: number): ODataTarget {
  const joined = path.join("/");
  if (path.length === 2 && path[0] === "attributes") return { kind: "attribute", name: path[1] as string };
  if (isTextField(joined) || isIntegerField(joined)) return { kind: "field", field: joined };
  if (joined === "trails") throw parseError("trails is a collection: use trails/any(t: t eq '<trail>')", pos);
  throw parseError(`unknown property '${joined}' (known: ${PROPERTY_NAMES.join(", ")})`, pos);
}

/**
 * Type-checks the literal against the property. Integer properties take integers, string
 * properties strings; an attribute also takes an integer or boolean for `eq`/`ne`, compared
 * as its text (the `->>` text of a JSON 5 or true). `null` only with `eq`/`ne`.
 */
export function parseComparisonValue(target: ODataTarget, op: ODataOp, literal: Token): string | null {
  const equality = op === "eq" || op === "ne";
  const name = target.kind === "attribute" ? `attributes/${target.name}` : target.field;
  const mismatch = (expected: string) =>
    parseError(`${name} ${op} needs ${expected}, found ${describe(literal)}`, literal.pos);
  const word = literal.kind === "word" ? literal.text.toLowerCase() : undefined;
  if (word === "null") {
    if (!equality) throw mismatch("a non-null value (null compares only with eq or ne)");
    return null;
  }
  const integer = target.kind === "field" && isIntegerField(target.field);
  if (integer) {
    if (literal.kind !== "integer") throw mismatch("an integer");
    const value = canonicalInt64(literal.digits);
    if (value === undefined) throw parseError("integer out of the 64-bit range", literal.pos);
    return value;
  }
  if (literal.kind === "string") return literal.value;
  if (target.kind === "attribute" && equality) {
    if (literal.kind === "integer") return literal.digits;
    if (word === "true" || word === "false") return word;
  }
  throw mismatch("a string in single quotes");
}
