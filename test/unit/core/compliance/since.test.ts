import { describe, expect, it } from "vitest";
import { evaluateCompliance } from "../../../../src/core/compliance/evaluate.js";
import type { ComplianceEvent } from "../../../../src/core/compliance/types.js";
import { event, hoursAfter, judgesEachCase, policy, type TimelineCase } from "./fixtures.js";

const daily = policy("COMPLIANCE_SINCE", { event_display_type: "Maintenance", time_period_seconds: "86400" });

const history: ComplianceEvent[] = [
  event("Maintenance", 0),
  event("Inspection", 50),
  event("Maintenance", 72),
  { timestamp_declared: "not a time", event_attributes: { arc_display_type: "Maintenance" } },
];

const cases: TimelineCase[] = [
  { name: "recent event", events: history, at: 80, compliant: true, reason: /8 hours ago, within 86400/ },
  { name: "exactly at the limit", events: history, at: 96, compliant: true, reason: /1 day ago, within/ },
  {
    name: "stale event",
    events: history,
    at: 72 + 24 * 3,
    compliant: false,
    reason: /^last Maintenance event was 3 days ago, more than 86400 seconds$/,
  },
  {
    name: "historical: before the second event",
    events: history,
    at: 60,
    compliant: false,
    reason: /2 days 12 hours ago/,
  },
  { name: "historical: just after the first", events: history, at: 1, compliant: true, reason: /1 hour ago/ },
  {
    name: "historical: before any event",
    events: history,
    at: -1,
    compliant: false,
    reason: /^no Maintenance event at or before 2024-02-29T23:00:00.000Z$/,
  },
  { name: "no events at all", events: [], at: 10, compliant: false, reason: /no Maintenance event/ },
  {
    name: "other types do not count",
    events: [event("Inspection", 9)],
    at: 10,
    compliant: false,
    reason: /no Maintenance/,
  },
];

describe("COMPLIANCE_SINCE", () => {
  judgesEachCase(daily, cases);

  it("uses the latest event even when events arrive out of order", () => {
    const events = [event("Maintenance", 72), event("Maintenance", 0)];
    expect(evaluateCompliance(daily, { events, assetAttributes: {}, at: hoursAfter(80) }).compliant).toBe(
      true,
    );
  });

  it("fails a stored policy whose period is unusable", () => {
    const broken = { ...daily, time_period_seconds: "soon" };
    const result = evaluateCompliance(broken, { events: history, assetAttributes: {}, at: hoursAfter(80) });
    expect(result).toEqual({ compliant: false, reason: "policy has no valid time_period_seconds" });
  });

  it("refuses an invalid check time with a 400", () => {
    expect(() =>
      evaluateCompliance(daily, { events: history, assetAttributes: {}, at: new Date(Number.NaN) }),
    ).toThrow(expect.objectContaining({ kind: "invalid_argument" }));
  });
});
