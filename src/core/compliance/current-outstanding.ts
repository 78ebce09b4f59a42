import { pairEvents, pairName } from "./pairs.js";
import { timelineUpTo } from "./timeline.js";
import type { ComplianceContext, CompliancePolicyInput, ComplianceResult } from "./types.js";

const LISTED = 5;

/**
 * COMPLIANCE_CURRENT_OUTSTANDING: every event of `event_display_type` at or before the
 * check time has its closing event of `closing_event_display_type` (same
 * `arc_correlation_value`) at or before the check time too.
 */
export function evaluateCurrentOutstanding(
  policy: CompliancePolicyInput,
  context: ComplianceContext,
): ComplianceResult {
  const open = policy.event_display_type;
  const close = policy.closing_event_display_type;
  const pairs = pairEvents(timelineUpTo(context.events, context.at.getTime()), open, close);
  const outstanding = pairs.filter((pair) => pair.closed === undefined);
  if (outstanding.length === 0) {
    const reason =
      pairs.length === 0
        ? `no ${open} events, nothing outstanding`
        : `all ${pairs.length} ${open} events are closed by ${close}`;
    return { compliant: true, reason };
  }
  const names = outstanding.slice(0, LISTED).map(pairName).join(", ");
  const more = outstanding.length > LISTED ? ` and ${outstanding.length - LISTED} more` : "";
  return {
    compliant: false,
    reason: `${outstanding.length} ${open} events not closed by ${close}: ${names}${more}`,
  };
}
