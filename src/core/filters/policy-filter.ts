import { parseOrGroups } from "./or-groups.js";

/**
 * One entry of a policy filter (`filters` of access policies, `asset_filter` of compliance
 * policies). `text` keeps the string as sent so the policy can be answered back unchanged.
 */
export type PolicyCondition =
  | { text: string; name: string; op: "eq" | "ne"; value: string }
  | { text: string; name: string; op: "present" | "absent" };

/** One inner OR list; a policy's filters AND these together. */
export interface PolicyFilter {
  or: PolicyCondition[];
}

const PREFIX = "attributes.";
const FORM = "expected attributes.<name>=<value> or attributes.<name>!=<value> (value * for presence)";

/** Validates and parses `[{or: ["attributes.<name>=<value>", ...]}, ...]`. */
export function parsePolicyFilters(value: unknown, field = "filters"): PolicyFilter[] {
  return parseOrGroups(value, field, "POLICY_FILTER", parsePolicyCondition);
}

/** Parses one filter string, or answers why it is malformed. */
function parsePolicyCondition(text: string): PolicyCondition | string {
  if (!text.startsWith(PREFIX)) return FORM;
  const body = text.slice(PREFIX.length);
  const eq = body.indexOf("=");
  if (eq < 0) return FORM;
  const negated = body[eq - 1] === "!";
  const name = body.slice(0, negated ? eq - 1 : eq);
  const value = body.slice(eq + 1);
  if (name === "") return "names no attribute";
  if (value === "*") return { text, name, op: negated ? "absent" : "present" };
  return { text, name, op: negated ? "ne" : "eq", value };
}

/** The filters as the API shows them: `[{or: [string]}]`. */
export function policyFiltersToWire(filters: readonly PolicyFilter[]): Array<{ or: string[] }> {
  return filters.map((f) => ({ or: f.or.map((c) => c.text) }));
}
