import { parseRichnessAssertion } from "./richness-assertion.js";
import { compareValues } from "./richness-compare.js";
import type { ComplianceContext, CompliancePolicyInput, ComplianceResult, OrClause } from "./types.js";

interface Check {
  holds: boolean;
  /** Why it does not hold, when it does not. */
  why: string;
}

/**
 * The asset attribute an assertion names, as a string. `attributes.<k>` (the filter
 * spelling) is read as `<k>` when no attribute is literally named so. Objects and
 * arrays cannot be compared and count as absent.
 */
function attributeText(attributes: Record<string, unknown>, name: string): string | undefined {
  const prefixed = name.startsWith("attributes.") && !(name in attributes);
  const value = attributes[prefixed ? name.slice("attributes.".length) : name];
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** One assertion against the asset attributes; a missing attribute fails every operator. */
function check(text: string, attributes: Record<string, unknown>): Check {
  const assertion = parseRichnessAssertion(text);
  if (assertion === undefined) return { holds: false, why: `'${text}' is not an assertion` };
  const actual = attributeText(attributes, assertion.attribute);
  if (actual === undefined) return { holds: false, why: `${assertion.attribute} is missing` };
  const holds = compareValues(actual, assertion.operator, assertion.value);
  return {
    holds,
    why: `${assertion.attribute} is '${actual}', not ${assertion.operator} '${assertion.value}'`,
  };
}

/** Why no assertion of a clause holds, or undefined when one does. */
function failedClause(clause: OrClause, attributes: Record<string, unknown>): string | undefined {
  const checks = clause.or.map((text) => check(text, attributes));
  if (checks.some((c) => c.holds)) return undefined;
  return checks.length === 0 ? "an empty assertion list" : checks.map((c) => c.why).join(" and ");
}

/**
 * COMPLIANCE_RICHNESS: every `{or: [...]}` clause of `richness_assertions` has at least
 * one assertion that holds on the asset attributes. A policy without clauses fails,
 * since validation never lets one be stored.
 */
export function evaluateRichness(
  policy: CompliancePolicyInput,
  context: ComplianceContext,
): ComplianceResult {
  const clauses = policy.richness_assertions;
  if (clauses.length === 0) return { compliant: false, reason: "policy has no richness_assertions" };
  const failures = clauses.flatMap((clause) => failedClause(clause, context.assetAttributes) ?? []);
  if (failures.length === 0) {
    return { compliant: true, reason: `all ${clauses.length} richness assertion groups hold` };
  }
  return { compliant: false, reason: failures.join("; ") };
}
