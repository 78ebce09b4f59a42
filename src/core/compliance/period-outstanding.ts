import { describeSeconds } from "./duration.js";
import { type EventPair, pairEvents, pairName, pairSeconds } from "./pairs.js";
import { policySeconds } from "./policy-numbers.js";
import { timelineUpTo } from "./timeline.js";
import type { ComplianceContext, CompliancePolicyInput, ComplianceResult } from "./types.js";

/** How long a pair has been (or was) open at the check time. */
const pairAge = (pair: EventPair, atMs: number) => pairSeconds(pair, pair.closed ?? atMs);

/**
 * COMPLIANCE_PERIOD_OUTSTANDING: no pair of events took longer than `time_period_seconds`
 * from opening to closing. Decision: a pair still open at the check time counts with its
 * age at that time, so an item left unresolved for too long fails without waiting for
 * its closing event; one still within the period passes. Every pair opened at or before
 * the check time is considered, closed long ago or not, as the interface words it.
 */
export function evaluatePeriodOutstanding(
  policy: CompliancePolicyInput,
  context: ComplianceContext,
): ComplianceResult {
  const period = policySeconds(policy.time_period_seconds);
  if (period === undefined) return { compliant: false, reason: "policy has no valid time_period_seconds" };
  const atMs = context.at.getTime();
  const open = policy.event_display_type;
  const pairs = pairEvents(timelineUpTo(context.events, atMs), open, policy.closing_event_display_type);
  let worst: EventPair | undefined;
  for (const pair of pairs) {
    if (worst === undefined || pairAge(pair, atMs) > pairAge(worst, atMs)) worst = pair;
  }
  if (worst === undefined || pairAge(worst, atMs) <= period) {
    return { compliant: true, reason: `no ${open} event outstanding for more than ${period} seconds` };
  }
  const took = describeSeconds(pairAge(worst, atMs));
  const what = worst.closed === undefined ? `has been outstanding for ${took}` : `was closed after ${took}`;
  return {
    compliant: false,
    reason: `${open} event ${pairName(worst)} ${what}, more than ${period} seconds`,
  };
}
