import type { z } from "zod";
import { badRequest } from "../../errors/api-error.js";
import { type CompliancePolicyBody, compliancePolicyBody } from "./policy-schema.js";
import { parseRichnessAssertion } from "./richness-assertion.js";
import type { CompliancePolicyInput, ComplianceType } from "./types.js";

type RequiredField = keyof CompliancePolicyBody;

/** The fields each policy type cannot do without. */
const REQUIRED: Record<ComplianceType, RequiredField[]> = {
  COMPLIANCE_SINCE: ["event_display_type", "time_period_seconds"],
  COMPLIANCE_CURRENT_OUTSTANDING: ["event_display_type", "closing_event_display_type"],
  COMPLIANCE_PERIOD_OUTSTANDING: ["event_display_type", "closing_event_display_type", "time_period_seconds"],
  COMPLIANCE_DYNAMIC_TOLERANCE: [
    "event_display_type",
    "closing_event_display_type",
    "dynamic_window",
    "dynamic_variability",
  ],
  COMPLIANCE_RICHNESS: ["richness_assertions"],
};

/** `asset_filter[0].or[1]` from a zod path. */
function pathText(path: readonly PropertyKey[]): string {
  return path
    .map((key, i) => (typeof key === "number" ? `[${key}]` : `${i ? "." : ""}${String(key)}`))
    .join("");
}

/** Empty strings and lists are as good as absent; so is a zero window or period (proto3's unset). */
function isMissing(body: CompliancePolicyBody, field: RequiredField): boolean {
  const value = body[field];
  const seconds = field === "time_period_seconds" || field === "dynamic_window";
  if (value === undefined || value === "" || (seconds && value === "0")) return true;
  return Array.isArray(value) && value.length === 0;
}

/** Problems with richness assertions: empty clauses and strings that are no assertion. */
function assertionProblems(body: CompliancePolicyBody): string[] {
  return (body.richness_assertions ?? []).flatMap((clause, i) => {
    if (clause.or.length === 0) return [`richness_assertions[${i}].or must not be empty`];
    return clause.or.flatMap((text, j) =>
      parseRichnessAssertion(text) === undefined
        ? [`richness_assertions[${i}].or[${j}] '${text}' is not <attribute><operator><value>`]
        : [],
    );
  });
}

function fail(problems: string[]): never {
  throw badRequest(`invalid compliance policy: ${problems.join("; ")}`);
}

function withDefaults(body: CompliancePolicyBody): CompliancePolicyInput {
  return {
    compliance_type: body.compliance_type,
    display_name: body.display_name ?? "",
    description: body.description ?? "",
    asset_filter: body.asset_filter ?? [],
    event_display_type: body.event_display_type ?? "",
    closing_event_display_type: body.closing_event_display_type ?? "",
    time_period_seconds: body.time_period_seconds ?? "0",
    dynamic_window: body.dynamic_window ?? "0",
    dynamic_variability: body.dynamic_variability ?? 0,
    richness_assertions: body.richness_assertions ?? [],
  };
}

/**
 * Checks a create request and returns it normalised (int64 fields as decimal strings,
 * absent fields filled in). Throws a 400 ApiError naming every problem, including every
 * field the policy type requires but the request lacks.
 */
export function validateCompliancePolicyInput(body: unknown): CompliancePolicyInput {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    fail(["the request body must be a JSON object"]);
  }
  const parsed = compliancePolicyBody.safeParse(body);
  if (!parsed.success) fail(parsed.error.issues.map(issueText));
  const missing = REQUIRED[parsed.data.compliance_type].filter((field) => isMissing(parsed.data, field));
  const problems = missing.length ? [`${parsed.data.compliance_type} requires ${missing.join(", ")}`] : [];
  problems.push(...assertionProblems(parsed.data));
  if (problems.length > 0) fail(problems);
  return withDefaults(parsed.data);
}

const issueText = (issue: z.core.$ZodIssue) => `${pathText(issue.path)} ${issue.message}`;
