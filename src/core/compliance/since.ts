import { describeSeconds } from "./duration.js";
import { policySeconds } from "./policy-numbers.js";
import { timelineUpTo } from "./timeline.js";
import type { ComplianceContext, CompliancePolicyInput, ComplianceResult } from "./types.js";

/**
 * COMPLIANCE_SINCE: the last event of `event_display_type` at or before the check time
 * is no older than `time_period_seconds`. With no such event the asset is not compliant.
 */
export function evaluateSince(policy: CompliancePolicyInput, context: ComplianceContext): ComplianceResult {
  const period = policySeconds(policy.time_period_seconds);
  if (period === undefined) return { compliant: false, reason: "policy has no valid time_period_seconds" };
  const atMs = context.at.getTime();
  const type = policy.event_display_type;
  const matching = timelineUpTo(context.events, atMs).filter((event) => event.type === type);
  const last = matching.at(-1);
  if (last === undefined) {
    return { compliant: false, reason: `no ${type} event at or before ${context.at.toISOString()}` };
  }
  const age = (atMs - last.time) / 1000;
  const ago = describeSeconds(age);
  return age <= period
    ? { compliant: true, reason: `last ${type} event was ${ago} ago, within ${period} seconds` }
    : { compliant: false, reason: `last ${type} event was ${ago} ago, more than ${period} seconds` };
}
