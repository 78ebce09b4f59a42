import { badRequest } from "../../errors/api-error.js";
import { evaluateCurrentOutstanding } from "./current-outstanding.js";
import { evaluateDynamicTolerance } from "./dynamic-tolerance.js";
import { evaluatePeriodOutstanding } from "./period-outstanding.js";
import { evaluateRichness } from "./richness.js";
import { evaluateSince } from "./since.js";
import type { ComplianceContext, CompliancePolicyInput, ComplianceResult } from "./types.js";

/**
 * Evaluates one policy for one asset at `context.at`, considering only events declared
 * at or before it. Throws a 400 ApiError for an invalid check time.
 */
export function evaluateCompliance(
  policy: CompliancePolicyInput,
  context: ComplianceContext,
): ComplianceResult {
  if (!Number.isFinite(context.at.getTime())) throw badRequest("compliant_at is not a valid time");
  switch (policy.compliance_type) {
    case "COMPLIANCE_SINCE":
      return evaluateSince(policy, context);
    case "COMPLIANCE_CURRENT_OUTSTANDING":
      return evaluateCurrentOutstanding(policy, context);
    case "COMPLIANCE_PERIOD_OUTSTANDING":
      return evaluatePeriodOutstanding(policy, context);
    case "COMPLIANCE_DYNAMIC_TOLERANCE":
      return evaluateDynamicTolerance(policy, context);
    case "COMPLIANCE_RICHNESS":
      return evaluateRichness(policy, context);
    default:
      // A row written by an older or newer version may carry a type this one does not know.
      return { compliant: false, reason: `unknown compliance_type ${String(policy.compliance_type)}` };
  }
}
