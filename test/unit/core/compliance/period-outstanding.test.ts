import { describe, expect, it } from "vitest";
import { evaluateCompliance } from "../../../../src/core/compliance/evaluate.js";
import type { ComplianceEvent } from "../../../../src/core/compliance/types.js";
import { event, hoursAfter, judgesEachCase, policy, type TimelineCase } from "./fixtures.js";

const twoDays = policy("COMPLIANCE_PERIOD_OUTSTANDING", {
  event_display_type: "Ticket Opened",
  closing_event_display_type: "Ticket Closed",
  time_period_seconds: String(48 * 3600),
});

const quick: ComplianceEvent[] = [
  event("Ticket Opened", 0, "T1"),
  event("Ticket Closed", 5, "T1"),
  event("Ticket Opened", 10, "T2"),
  event("Ticket Closed", 40, "T2"),
];
const slow: ComplianceEvent[] = [
  ...quick,
  event("Ticket Opened", 50, "T3"),
  event("Ticket Closed", 110, "T3"),
];

const cases: TimelineCase[] = [
  {
    name: "all pairs quick",
    events: quick,
    at: 100,
    compliant: true,
    reason: /^no Ticket Opened event outstanding for more than 172800 seconds$/,
  },
  {
    name: "a pair took too long",
    events: slow,
    at: 200,
    compliant: false,
    reason: /^Ticket Opened event 'T3' was closed after 2 days 12 hours, more than 172800 seconds$/,
  },
  {
    name: "historical: the slow pair is still young",
    events: slow,
    at: 90,
    compliant: true,
    reason: /no Ticket Opened event outstanding/,
  },
  {
    name: "historical: the slow pair is already overdue",
    events: slow,
    at: 99,
    compliant: false,
    reason: /'T3' has been outstanding for 2 days 1 hour, more than/,
  },
  { name: "no events", events: [], at: 10, compliant: true, reason: /no Ticket Opened event outstanding/ },
  {
    name: "an unclosed pair within the period passes",
    events: [event("Ticket Opened", 0, "T9")],
    at: 47,
    compliant: true,
    reason: /no Ticket Opened/,
  },
  {
    name: "an unclosed pair beyond the period fails",
    events: [event("Ticket Opened", 0, "T9")],
    at: 49,
    compliant: false,
    reason: /'T9' has been outstanding for 2 days 1 hour/,
  },
];

describe("COMPLIANCE_PERIOD_OUTSTANDING", () => {
  judgesEachCase(twoDays, cases);

  it("treats a closing declared before its opening as an instant pair", () => {
    const events = [event("Ticket Closed", 0, "T1"), event("Ticket Opened", 100, "T1")];
    const result = evaluateCompliance(twoDays, { events, assetAttributes: {}, at: hoursAfter(200) });
    expect(result.compliant).toBe(true);
  });
});
