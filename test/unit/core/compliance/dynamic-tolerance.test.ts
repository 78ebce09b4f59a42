import { describe, expect, it } from "vitest";
import { evaluateCompliance } from "../../../../src/core/compliance/evaluate.js";
import type { ComplianceEvent } from "../../../../src/core/compliance/types.js";
import { event, hoursAfter, judgesEachCase, policy, type TimelineCase } from "./fixtures.js";

const tolerance = policy("COMPLIANCE_DYNAMIC_TOLERANCE", {
  event_display_type: "Start",
  closing_event_display_type: "End",
  dynamic_window: String(30 * 24 * 3600),
  dynamic_variability: 2,
});

/** Pairs opened one day apart, each lasting the given number of hours. */
function pairs(durations: number[], firstDay = 0): ComplianceEvent[] {
  return durations.flatMap((hours, i) => {
    const start = (firstDay + i) * 24;
    return [event("Start", start, `P${i}`), event("End", start + hours, `P${i}`)];
  });
}

// Nine one-hour pairs then one of ten hours: mean 1.9 h, population SD 2.7 h, limit 7.3 h.
const outlier = pairs([1, 1, 1, 1, 1, 1, 1, 1, 1, 10]);
// The same outlier among five pairs cannot reach 2 SD: the most (n-1)/sqrt(n) = 1.79 allows.
const fewPairs = pairs([1, 1, 1, 1, 10]);

const cases: TimelineCase[] = [
  {
    name: "steady durations",
    events: pairs([1, 2, 1, 2, 1, 2, 1, 2]),
    at: 10 * 24,
    compliant: true,
    reason:
      /^none of 8 Start pairs took more than 2 standard deviations above the mean of 1 hour 30 minutes$/,
  },
  {
    name: "an outlier",
    events: outlier,
    at: 10 * 24,
    compliant: false,
    reason:
      /^Start event 'P9' took 10 hours, more than 2 standard deviations above the mean of 1 hour 54 minutes \(limit 7 hours 18 minutes\)$/,
  },
  {
    name: "population SD: five pairs cannot fail at 2 SD",
    events: fewPairs,
    at: 10 * 24,
    compliant: true,
    reason: /none of 5/,
  },
  {
    name: "historical: before the outlier closed",
    events: outlier,
    at: 9 * 24 + 5,
    compliant: true,
    reason: /none of 9 Start pairs/,
  },
  {
    name: "outlier outside the window later on",
    events: outlier,
    at: 9 * 24 + 10 + 30 * 24 + 1,
    compliant: true,
    reason: /no Start pairs closed in the last 2592000 seconds/,
  },
  { name: "no pairs", events: [], at: 10, compliant: true, reason: /no Start pairs closed/ },
  {
    name: "open pairs are not measured",
    events: [event("Start", 0, "X")],
    at: 1000,
    compliant: true,
    reason: /no Start pairs closed/,
  },
];

describe("COMPLIANCE_DYNAMIC_TOLERANCE", () => {
  judgesEachCase(tolerance, cases);

  it("only counts pairs closed inside the window", () => {
    // With a two-day window at day 9 + 11 h only the outlier (closed at 9 d 10 h) and P8 are in it.
    const narrow = { ...tolerance, dynamic_window: String(2 * 24 * 3600) };
    const result = evaluateCompliance(narrow, {
      events: outlier,
      assetAttributes: {},
      at: hoursAfter(9 * 24 + 11),
    });
    expect(result).toEqual({
      compliant: true,
      reason:
        "none of 2 Start pairs took more than 2 standard deviations above the mean of 5 hours 30 minutes",
    });
  });

  it("a lower variability fails the outlier among few pairs", () => {
    const strict = { ...tolerance, dynamic_variability: 1 };
    const result = evaluateCompliance(strict, {
      events: fewPairs,
      assetAttributes: {},
      at: hoursAfter(10 * 24),
    });
    expect(result.compliant).toBe(false);
  });

  it("fails a stored policy without a window", () => {
    const broken = { ...tolerance, dynamic_window: "0" };
    const result = evaluateCompliance(broken, { events: outlier, assetAttributes: {}, at: hoursAfter(300) });
    expect(result).toEqual({ compliant: false, reason: "policy has no valid dynamic_window" });
  });
});
