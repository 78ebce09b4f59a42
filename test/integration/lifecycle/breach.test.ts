import { describe, expect, it } from "vitest";
import { createAsset } from "../../helpers/records.js";
import { serviceForSuite } from "../../helpers/service.js";
import { exportedBundle } from "../../helpers/vcon-bundle.js";
import { untilSealed, vconEvent } from "../../helpers/vcon-event.js";

// The breach workflow (docs/vcon-lifecycle.md, §7): a vCon's breach events recorded through the
// API, exported, and judged offline by the CLI against the deadlines the caller gives (a
// regulator's hours, here shortened so that the test's own clock can miss one).
const suite = serviceForSuite();
const vcon = crypto.randomUUID();

describe("the breach workflow, from the log", () => {
  it("shows each breach's steps and flags a notification past its deadline", async () => {
    const { s, token } = suite;
    const asset = await createAsset(s, token, { arc_display_type: "vcon" });
    const post = async (op: string, breach: string) => {
      const e = vconEvent(vcon, op, "2026-01-01");
      const res = await s.api(`/archivist/v2/${asset.identity}/events`, {
        method: "POST",
        token,
        json: { ...e, event_attributes: { ...e.event_attributes, breach_id: breach } },
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return ((await res.json()) as { identity: string }).identity;
    };
    const detectedLate = await post("vcon_breach_detected", "INC-1");
    const detectedOpen = await post("vcon_breach_detected", "INC-2");
    await post("vcon_breach_investigated", "INC-1");
    // 3.6 s is the deadline below; the regulator hears of INC-1 after it.
    await new Promise((r) => setTimeout(r, 4000));
    const late = await post("vcon_regulator_notified", "INC-1");
    await post("vcon_remediated", "INC-1");
    await untilSealed(s, token, asset.identity);

    const bundle = await exportedBundle(s, token, vcon);
    const verify = (extra: string[]) => bundle.report(...extra);

    // 0.001 h = 3.6 s: INC-1's regulator was told too late; INC-2's was never told, and its time is up.
    const short = await verify(["--regulator-hours", "0.001"]);
    expect(short.code, short.out).toBe(0);
    expect(short.out).toMatch(new RegExp(`breach INC-1: remediated, detected \\S+ \\(${detectedLate}\\)`));
    expect(short.out).toMatch(new RegExp(`regulator notified \\S+ \\(${late}\\)`));
    expect(short.out).toMatch(
      /MISSED: the regulator notified \d+\.\d h after detection, past the 0\.001 h deadline/,
    );
    expect(short.out).toMatch(new RegExp(`breach INC-2: detected, detected \\S+ \\(${detectedOpen}\\)`));
    expect(short.out).toMatch(/MISSED: the regulator not notified, and the 0\.001 h deadline passed at /);
    expect(short.out).toContain("2 breach notification deadline(s) MISSED");

    // GDPR's 72 h (the default): INC-1 met it, INC-2 is still open; the subjects' deadline when asked.
    const gdpr = await verify(["--subject-hours", "24", "--json"]);
    const report = JSON.parse(gdpr.out).consent_report as {
      breach_deadlines: Record<string, number>;
      breaches: Array<{ breach: string; stage: string; deadlines: Array<{ party: string; state: string }> }>;
    };
    expect(report.breach_deadlines).toEqual({ regulatorHours: 72, subjectHours: 24 });
    expect(
      report.breaches.map((b) => [b.breach, b.stage, b.deadlines.map((d) => `${d.party}:${d.state}`)]),
    ).toEqual([
      ["INC-1", "remediated", ["regulator:met", "subject:open"]],
      ["INC-2", "detected", ["regulator:open", "subject:open"]],
    ]);
    const bad = await verify(["--regulator-hours", "soon"]);
    expect(bad.out).toContain('--regulator-hours takes a number of hours, got "soon"');
    expect(bad.code).not.toBe(0);
  });
});
