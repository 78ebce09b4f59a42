import { QueryError } from "../../errors/query-error.js";
import type { AttributeFilter } from "./attribute-filter.js";
import { assertStorableText } from "./text-guard.js";

/** Fields a `principal_*` prefix may filter on. */
const PRINCIPAL_FIELDS = new Set(["issuer", "subject", "display_name", "email"]);
/** Bounds the SQL a single query string can produce. */
const MAX_VALUES = 500;

/**
 * Splits query pairs into attribute filters for the given prefixes (`attributes`,
 * `event_attributes`, `asset_attributes`, `principal_declared`, ...) and the other pairs.
 */
export function parseAttributeQuery(
  pairs: ReadonlyArray<readonly [string, string]>,
  prefixes: readonly string[],
): { filters: AttributeFilter[]; rest: Array<[string, string]> } {
  const byKey = new Map<string, AttributeFilter>();
  // A conserver's grouped look-up repeats one key up to MAX_VALUES times: a set per filter keeps
  // the de-duplication linear (an array's `includes` made it quadratic in the group).
  const seen = new Map<string, Set<string>>();
  const rest: Array<[string, string]> = [];
  let count = 0;
  for (const [key, value] of pairs) {
    const prefix = prefixes.find((p) => key.startsWith(`${p}.`));
    if (prefix === undefined) {
      rest.push([key, value]);
      continue;
    }
    if (++count > MAX_VALUES)
      throw new QueryError("ATTRIBUTE_QUERY", `more than ${MAX_VALUES} attribute filters`);
    addPair(byKey, seen, prefix, key, value);
  }
  return { filters: [...byKey.values()], rest };
}

function addPair(
  byKey: Map<string, AttributeFilter>,
  seen: Map<string, Set<string>>,
  prefix: string,
  key: string,
  value: string,
): void {
  const negated = key.endsWith("!");
  const name = key.slice(prefix.length + 1, negated ? -1 : undefined);
  checkName(prefix, key, name);
  assertStorableText(value, `the value of query key ${key}`, "ATTRIBUTE_QUERY");
  if (negated && value !== "*")
    throw new QueryError("ATTRIBUTE_QUERY", `query key ${key} takes only the value * (missing or empty)`);
  const id = `${prefix}\u0000${name}\u0000${negated ? "!" : ""}`;
  const existing = byKey.get(id);
  if (negated) {
    if (!existing) byKey.set(id, { kind: "missing", prefix, name });
    return;
  }
  const filter = existing ?? { kind: "match", prefix, name, values: [], present: false };
  if (filter.kind !== "match") return;
  byKey.set(id, filter);
  if (value === "*") {
    filter.present = true;
    return;
  }
  let values = seen.get(id);
  if (values === undefined) {
    values = new Set();
    seen.set(id, values);
  }
  if (values.has(value)) return;
  values.add(value);
  filter.values.push(value);
}

function checkName(prefix: string, key: string, name: string): void {
  if (name === "") throw new QueryError("ATTRIBUTE_QUERY", `query key ${key} names no attribute`);
  assertStorableText(name, `query key ${key}`, "ATTRIBUTE_QUERY");
  if (prefix.startsWith("principal_") && !PRINCIPAL_FIELDS.has(name))
    throw new QueryError(
      "ATTRIBUTE_QUERY",
      `query key ${key}: ${prefix} filters only on ${[...PRINCIPAL_FIELDS].join(", ")}`,
    );
}
