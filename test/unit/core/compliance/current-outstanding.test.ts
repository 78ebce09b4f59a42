import { describe, expect, it } from "vitest";
import { evaluateCompliance } from "../../../../src/core/compliance/evaluate.js";
import type { ComplianceEvent } from "../../../../src/core/compliance/types.js";
import { event, hoursAfter, judgesEachCase, policy, type TimelineCase } from "./fixtures.js";

const vulnerabilities = policy("COMPLIANCE_CURRENT_OUTSTANDING", {
  event_display_type: "Vulnerability",
  closing_event_display_type: "Patch",
});

const history: ComplianceEvent[] = [
  event("Vulnerability", 0, "CVE-1"),
  event("Vulnerability", 10, "CVE-2"),
  event("Patch", 20, "CVE-1"),
  event("Patch", 30, "CVE-2"),
];

const cases: TimelineCase[] = [
  {
    name: "all closed",
    events: history,
    at: 40,
    compliant: true,
    reason: /^all 2 Vulnerability events are closed by Patch$/,
  },
  {
    name: "historical: both open",
    events: history,
    at: 15,
    compliant: false,
    reason: /^2 Vulnerability events not closed by Patch: 'CVE-1', 'CVE-2'$/,
  },
  { name: "historical: one closed", events: history, at: 25, compliant: false, reason: /: 'CVE-2'$/ },
  {
    name: "historical: before anything",
    events: history,
    at: -5,
    compliant: true,
    reason: /no Vulnerability events/,
  },
  {
    name: "closing of another value does not close",
    events: [event("Vulnerability", 0, "CVE-1"), event("Patch", 1, "CVE-9")],
    at: 2,
    compliant: false,
    reason: /'CVE-1'/,
  },
  {
    name: "correlation values match exactly",
    events: [event("Vulnerability", 0, "CVE-1"), event("Patch", 1, "cve-1")],
    at: 2,
    compliant: false,
    reason: /'CVE-1'/,
  },
  {
    name: "an opening without correlation value is never closed",
    events: [event("Vulnerability", 0), event("Patch", 1)],
    at: 2,
    compliant: false,
    reason: /\(no arc_correlation_value\)/,
  },
  {
    name: "a reused value needs a second closing",
    events: [event("Vulnerability", 0, "A"), event("Patch", 1, "A"), event("Vulnerability", 2, "A")],
    at: 3,
    compliant: false,
    reason: /1 Vulnerability events not closed/,
  },
];

describe("COMPLIANCE_CURRENT_OUTSTANDING", () => {
  judgesEachCase(vulnerabilities, cases);

  it("lists at most five outstanding values", () => {
    const events = Array.from({ length: 7 }, (_, i) => event("Vulnerability", i, `V${i}`));
    const result = evaluateCompliance(vulnerabilities, { events, assetAttributes: {}, at: hoursAfter(10) });
    expect(result.reason).toBe(
      "7 Vulnerability events not closed by Patch: 'V0', 'V1', 'V2', 'V3', 'V4' and 2 more",
    );
  });
});
