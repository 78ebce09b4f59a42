import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../../helpers/service.js";

let s: TestService;
let token: string;
beforeAll(async () => {
  s = await startTestService({}, { compliance_policies: 1 });
  token = await s.token(s.a);
});
afterAll(() => s?.stop());

type Status = {
  compliant: boolean;
  compliant_at: string;
  compliance: Array<{ compliance_policy_identity: string; compliant: boolean; reason: string }>;
};
// One base time, so durations between declared times are exact.
const base = Date.now();
const hours = (h: number) => new Date(base - h * 3600_000).toISOString();

async function asset(attributes: Record<string, string>): Promise<string> {
  return (
    (await (await s.api("/archivist/v2/assets", { method: "POST", token, json: { attributes } })).json()) as {
      identity: string;
    }
  ).identity;
}
async function event(a: string, type: string, when: string, extra: Record<string, string> = {}) {
  const r = await s.api(`/archivist/v2/${a}/events`, {
    method: "POST",
    token,
    json: {
      operation: "Record",
      behaviour: "RecordEvidence",
      timestamp_declared: when,
      event_attributes: { arc_display_type: type, ...extra },
    },
  });
  expect(r.status).toBe(200);
}
async function policy(body: Record<string, unknown>): Promise<string> {
  const r = await s.api("/archivist/v1/compliance_policies", { method: "POST", token, json: body });
  expect(r.status, await r.clone().text()).toBe(200);
  return ((await r.json()) as { identity: string }).identity;
}
async function status(a: string, at?: string): Promise<Status> {
  const q = at ? `?compliant_at=${encodeURIComponent(at)}` : "";
  return (await (
    await s.api(`/archivist/v1/compliance/assets/${a.split("/")[1]}${q}`, { token })
  ).json()) as Status;
}
const verdict = (st: Status, id: string) => st.compliance.find((c) => c.compliance_policy_identity === id);

describe("compliance policies", () => {
  it("validates required fields per type, filters by type, deletes, and answers 402 past the quota", async () => {
    const bad = await s.api("/archivist/v1/compliance_policies", {
      method: "POST",
      token,
      json: { compliance_type: "COMPLIANCE_SINCE" },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(
      /event_display_type.*time_period_seconds|time_period_seconds.*event_display_type/,
    );
    expect(
      (
        await s.api("/archivist/v1/compliance_policies", {
          method: "POST",
          token,
          json: { compliance_type: "COMPLIANCE_MAGIC" },
        })
      ).status,
    ).toBe(400);
    const id = await policy({
      compliance_type: "COMPLIANCE_SINCE",
      display_name: "x",
      event_display_type: "Maintenance",
      time_period_seconds: 60,
      asset_filter: [{ or: ["attributes.kind=none"] }],
    });
    const list = (await (
      await s.api("/archivist/v1/compliance_policies?compliance_type=COMPLIANCE_SINCE", { token })
    ).json()) as { compliance_policies: Array<{ identity: string; time_period_seconds: string }> };
    expect(list.compliance_policies.map((p) => p.identity)).toContain(id);
    expect(list.compliance_policies[0]?.time_period_seconds).toBe("60");
    expect(
      (await s.api("/archivist/v1/compliance_policies?compliance_type=COMPLIANCE_RICHNESS", { token }))
        .status,
    ).toBe(200);
    expect((await s.api(`/archivist/v1/${id}`, { method: "DELETE", token })).status).toBe(200);
    expect((await s.api(`/archivist/v1/${id}`, { token })).status).toBe(404);
    const tb = await s.token(s.b);
    const body = { compliance_type: "COMPLIANCE_RICHNESS", richness_assertions: [{ or: ["rating>1"] }] };
    expect(
      (await s.api("/archivist/v1/compliance_policies", { method: "POST", token: tb, json: body })).status,
    ).toBe(200);
    expect(
      (await s.api("/archivist/v1/compliance_policies", { method: "POST", token: tb, json: body })).status,
    ).toBe(402);
  });

  it("SINCE: passes within the period, fails after it, and answers historically", async () => {
    const a = await asset({ kind: "since" });
    const id = await policy({
      compliance_type: "COMPLIANCE_SINCE",
      event_display_type: "Maintenance",
      time_period_seconds: "7200",
      asset_filter: [{ or: ["attributes.kind=since"] }],
    });
    expect(verdict(await status(a), id)?.compliant).toBe(false);
    await event(a, "Maintenance", hours(3));
    expect(verdict(await status(a), id)?.compliant).toBe(false);
    expect(verdict(await status(a, hours(2)), id)?.compliant).toBe(true);
    await event(a, "Maintenance", hours(1));
    const now = await status(a);
    expect(verdict(now, id)).toMatchObject({ compliant: true });
    expect(verdict(now, id)?.reason.length).toBeGreaterThan(5);
  });

  it("CURRENT_OUTSTANDING and PERIOD_OUTSTANDING pair by arc_correlation_value", async () => {
    const a = await asset({ kind: "outstanding" });
    const cur = await policy({
      compliance_type: "COMPLIANCE_CURRENT_OUTSTANDING",
      event_display_type: "Open",
      closing_event_display_type: "Close",
      asset_filter: [{ or: ["attributes.kind=outstanding"] }],
    });
    const per = await policy({
      compliance_type: "COMPLIANCE_PERIOD_OUTSTANDING",
      event_display_type: "Open",
      closing_event_display_type: "Close",
      time_period_seconds: "3600",
      asset_filter: [{ or: ["attributes.kind=outstanding"] }],
    });
    await event(a, "Open", hours(5), { arc_correlation_value: "c1" });
    expect(verdict(await status(a), cur)?.compliant).toBe(false);
    await event(a, "Close", hours(4.5), { arc_correlation_value: "c1" });
    expect(verdict(await status(a), cur)?.compliant).toBe(true);
    expect(verdict(await status(a), per)?.compliant).toBe(true);
    expect(verdict(await status(a, hours(4.75)), cur)?.compliant).toBe(false);
    await event(a, "Open", hours(3), { arc_correlation_value: "c2" });
    await event(a, "Close", hours(1), { arc_correlation_value: "c2" });
    expect(verdict(await status(a), per)?.compliant).toBe(false);
    expect(verdict(await status(a, hours(4)), per)?.compliant).toBe(true);
  });

  it("DYNAMIC_TOLERANCE fails a pair far above the mean duration of the window", async () => {
    const a = await asset({ kind: "dynamic" });
    const id = await policy({
      compliance_type: "COMPLIANCE_DYNAMIC_TOLERANCE",
      event_display_type: "Start",
      closing_event_display_type: "End",
      dynamic_window: "86400",
      dynamic_variability: 1,
      asset_filter: [{ or: ["attributes.kind=dynamic"] }],
    });
    for (const [i, start, end] of [
      [1, 20, 19.9],
      [2, 18, 17.9],
      [3, 16, 15.9],
      [4, 14, 13.9],
    ] as const) {
      await event(a, "Start", hours(start), { arc_correlation_value: `p${i}` });
      await event(a, "End", hours(end), { arc_correlation_value: `p${i}` });
    }
    expect(verdict(await status(a), id)?.compliant).toBe(true);
    await event(a, "Start", hours(10), { arc_correlation_value: "slow" });
    await event(a, "End", hours(2), { arc_correlation_value: "slow" });
    expect(verdict(await status(a), id)?.compliant).toBe(false);
    expect(verdict(await status(a, hours(5)), id)?.compliant).toBe(true);
  });

  it("RICHNESS compares numbers as numbers and strings as strings, on the asset as it was", async () => {
    const a = await asset({ kind: "rich", rating: "9", tier: "gold" });
    const id = await policy({
      compliance_type: "COMPLIANCE_RICHNESS",
      richness_assertions: [{ or: ["rating>=10", "tier=gold"] }, { or: ["rating<100"] }],
      asset_filter: [{ or: ["attributes.kind=rich"] }],
    });
    expect(verdict(await status(a), id)?.compliant).toBe(true);
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await s.api(`/archivist/v2/${a}/events`, {
      method: "POST",
      token,
      json: {
        operation: "Record",
        behaviour: "RecordEvidence",
        event_attributes: { arc_display_type: "rerate" },
        asset_attributes: { rating: "150" },
      },
    });
    expect(verdict(await status(a), id)?.compliant).toBe(false);
    expect(verdict(await status(a, before), id)?.compliant).toBe(true);
    const unrelated = await asset({ kind: "other" });
    expect(verdict(await status(unrelated), id)).toBeUndefined();
  });
});
