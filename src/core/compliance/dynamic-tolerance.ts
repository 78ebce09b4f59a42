import { describeSeconds } from "./duration.js";
import { pairEvents, pairName, pairSeconds } from "./pairs.js";
import { policySeconds } from "./policy-numbers.js";
import { meanAndDeviation } from "./statistics.js";
import { timelineUpTo } from "./timeline.js";
import type { ComplianceContext, CompliancePolicyInput, ComplianceResult } from "./types.js";

/**
 * COMPLIANCE_DYNAMIC_TOLERANCE: of the pairs closed within `dynamic_window` seconds
 * before the check time (both ends inclusive), none took more than
 * `dynamic_variability` population standard deviations above their mean duration.
 * Pairs still open are not measured; with no pair in the window nothing can fail.
 */
export function evaluateDynamicTolerance(
  policy: CompliancePolicyInput,
  context: ComplianceContext,
): ComplianceResult {
  const window = policySeconds(policy.dynamic_window);
  const variability = policy.dynamic_variability;
  if (window === undefined) return { compliant: false, reason: "policy has no valid dynamic_window" };
  if (!Number.isFinite(variability) || variability < 0) {
    return { compliant: false, reason: "policy has no valid dynamic_variability" };
  }
  const atMs = context.at.getTime();
  const open = policy.event_display_type;
  const pairs = pairEvents(timelineUpTo(context.events, atMs), open, policy.closing_event_display_type);
  const measured = pairs.flatMap((pair) =>
    pair.closed !== undefined && pair.closed >= atMs - window * 1000
      ? [{ pair, seconds: pairSeconds(pair, pair.closed) }]
      : [],
  );
  if (measured.length === 0) {
    return { compliant: true, reason: `no ${open} pairs closed in the last ${window} seconds` };
  }
  const { mean, deviation } = meanAndDeviation(measured.map((m) => m.seconds));
  const limit = mean + variability * deviation;
  const worst = measured.reduce((a, b) => (b.seconds > a.seconds ? b : a));
  const sds = `${variability} standard deviations above the mean of ${describeSeconds(mean)}`;
  if (worst.seconds <= limit) {
    return { compliant: true, reason: `none of ${measured.length} ${open} pairs took more than ${sds}` };
  }
  const took = describeSeconds(worst.seconds);
  return {
    compliant: false,
    reason: `${open} event ${pairName(worst.pair)} took ${took}, more than ${sds} (limit ${describeSeconds(limit)})`,
  };
}
