import { describe, expect, it } from "vitest";
import { lifecycleOrder } from "../../../../src/formats/lifecycle/consent.js";
import { breachStates } from "../../../../src/verify/lifecycle/breach.js";
import { consentReport, consentReportText } from "../../../../src/verify/lifecycle/report.js";
import { lifecycleRecords } from "./records.js";

const T0 = Date.UTC(2026, 2, 1, 9, 0);
const H = 3_600_000;
const record = lifecycleRecords();
const rec = (op: string, hours: number, breach?: string) =>
  record(op, T0 + hours * H, breach === undefined ? {} : { breach_id: breach });

describe("the breach workflow, derived from the log", () => {
  it("groups breach records per breach, and judges the regulator's 72 h from the detection", () => {
    const detected = rec("vcon_breach_detected", 0, "b-1");
    const investigated = rec("vcon_breach_investigated", 10, "b-1");
    const late = rec("vcon_regulator_notified", 80, "b-1");
    const subject = rec("vcon_subject_notified", 90, "b-1");
    const detected2 = rec("vcon_breach_detected", 1, "b-2");
    const inTime = rec("vcon_regulator_notified", 20, "b-2");
    const remediated = rec("vcon_remediated", 30, "b-2");
    const detected3 = rec("vcon_breach_detected", 100, "b-3");
    const unrelated = rec("vcon_created", 0);
    const ordered = lifecycleOrder([
      remediated,
      late,
      detected,
      investigated,
      subject,
      detected2,
      inTime,
      detected3,
      unrelated,
    ]);
    // Judged at 150 h: b-3's deadline (172 h) is still open.
    const states = breachStates(ordered, T0 + 150 * H, { regulatorHours: 72, subjectHours: 72 });
    expect(states.map((b) => [b.breach, b.stage])).toEqual([
      ["b-1", "regulator_notified"],
      ["b-2", "remediated"],
      ["b-3", "detected"],
    ]);
    const [b1, b2, b3] = states;
    expect(b1?.steps).toEqual({
      detected: { identity: detected.identity, at: "2026-03-01T09:00:00.000Z" },
      investigated: { identity: investigated.identity, at: "2026-03-01T19:00:00.000Z" },
      regulator_notified: { identity: late.identity, at: "2026-03-04T17:00:00.000Z" },
      subject_notified: { identity: subject.identity, at: "2026-03-05T03:00:00.000Z" },
    });
    expect(b1?.deadlines).toEqual([
      {
        party: "regulator",
        hours: 72,
        due: "2026-03-04T09:00:00.000Z",
        state: "missed",
        detail:
          "the regulator notified 80.0 h after detection, past the 72 h deadline (2026-03-04T09:00:00.000Z)",
      },
      {
        party: "subject",
        hours: 72,
        due: "2026-03-04T09:00:00.000Z",
        state: "missed",
        detail:
          "the data subject(s) notified 90.0 h after detection, past the 72 h deadline (2026-03-04T09:00:00.000Z)",
      },
    ]);
    expect(b2?.deadlines.map((d) => [d.party, d.state, d.detail])).toEqual([
      ["regulator", "met", "the regulator notified 19.0 h after detection (within 72 h)"],
      [
        "subject",
        "missed",
        "the data subject(s) not notified, and the 72 h deadline passed at 2026-03-04T10:00:00.000Z",
      ],
    ]);
    expect(b3?.deadlines.map((d) => d.state)).toEqual(["open", "open"]);
    expect(b3?.deadlines[0]?.detail).toBe("the regulator to be notified by 2026-03-08T13:00:00.000Z");
    expect(b3?.findings).toEqual([]);
    // Later, b-3's deadline has passed without a notification.
    const later = breachStates(ordered, T0 + 200 * H);
    expect(later.find((b) => b.breach === "b-3")?.findings).toEqual([
      "DEADLINE MISSED: the regulator not notified, and the 72 h deadline passed at 2026-03-08T13:00:00.000Z",
    ]);
    // The default: the regulator only (GDPR Art. 33).
    expect(later[0]?.deadlines.map((d) => d.party)).toEqual(["regulator"]);
  });

  it("says when a notification has no detection, or came before it; records naming no breach are one breach", () => {
    const notified = rec("vcon_regulator_notified", 1);
    const detected = rec("vcon_breach_detected", 2);
    const orphan = rec("vcon_subject_notified", 3, "x");
    const states = breachStates(lifecycleOrder([notified, detected, orphan]), T0 + 4 * H);
    expect(states.map((b) => [b.breach, b.findings])).toEqual([
      ["", [`regulator notified recorded before the detection (${notified.identity})`]],
      ["x", ["breach records with no detection recorded: no deadline can be measured"]],
    ]);
  });

  it("the report shows each breach and counts the missed deadlines", () => {
    const r = consentReport(
      "vcon://v",
      [rec("vcon_breach_detected", 0, "b"), rec("vcon_regulator_notified", 73, "b")],
      [],
      {},
      { nowMs: T0 + 100 * H },
    );
    expect(r.judged_at).toBe("2026-03-05T13:00:00.000Z");
    expect(r.breaches).toHaveLength(1);
    const text = consentReportText(r).join("\n");
    expect(text).toContain("breach b: regulator notified, detected 2026-03-01T09:00:00.000Z");
    expect(text).toContain("MISSED: the regulator notified 73.0 h after detection, past the 72 h deadline");
    expect(text).toContain("1 breach notification deadline(s) MISSED (judged at 2026-03-05T13:00:00.000Z)");
    // No deadline: nothing to miss.
    const none = consentReport(
      "vcon://v",
      [rec("vcon_breach_detected", 0, "c")],
      [],
      {},
      {
        nowMs: T0 + 1000 * H,
        breachDeadlines: {},
      },
    );
    expect(none.breaches[0]?.deadlines).toEqual([]);
    expect(consentReportText(none).join("\n")).toContain("no breach notification deadline missed");
  });
});
