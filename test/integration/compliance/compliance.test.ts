import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evidence, postEvent } from "../../helpers/records.js";
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

type Policy = { identity: string; compliance_type: string; [field: string]: unknown };
const POLICIES = "/archivist/v1/compliance_policies";

describe("compliance policies", () => {
  it("answers 400 naming every field each type lacks", async () => {
    const required: Record<string, string[]> = {
      COMPLIANCE_SINCE: ["event_display_type", "time_period_seconds"],
      COMPLIANCE_CURRENT_OUTSTANDING: ["event_display_type", "closing_event_display_type"],
      COMPLIANCE_PERIOD_OUTSTANDING: [
        "event_display_type",
        "closing_event_display_type",
        "time_period_seconds",
      ],
      COMPLIANCE_DYNAMIC_TOLERANCE: [
        "event_display_type",
        "closing_event_display_type",
        "dynamic_window",
        "dynamic_variability",
      ],
      COMPLIANCE_RICHNESS: ["richness_assertions"],
    };
    for (const [type, fields] of Object.entries(required)) {
      const res = await s.api(POLICIES, { method: "POST", token, json: { compliance_type: type } });
      expect(res.status, type).toBe(400);
      const { code, message } = (await res.json()) as { code: number; message: string };
      expect(code).toBe(3);
      for (const field of fields) expect(message, type).toContain(field);
      // Fields other types need are not asked for.
      if (!fields.includes("closing_event_display_type"))
        expect(message).not.toContain("closing_event_display_type");
    }
    // One field short is still refused, naming just that field.
    const short = await s.api(POLICIES, {
      method: "POST",
      token,
      json: {
        compliance_type: "COMPLIANCE_PERIOD_OUTSTANDING",
        event_display_type: "Open",
        time_period_seconds: 5,
      },
    });
    expect(short.status).toBe(400);
    expect(((await short.json()) as { message: string }).message).toMatch(
      /requires closing_event_display_type$/,
    );
    for (const body of [{ compliance_type: "COMPLIANCE_MAGIC" }, {}, []]) {
      expect((await s.api(POLICIES, { method: "POST", token, json: body })).status).toBe(400);
    }
  });

  it("creates, reads, filters by type, deletes, and answers 402 past the quota", async () => {
    const since = await policy({
      compliance_type: "COMPLIANCE_SINCE",
      display_name: "Serviced hourly",
      description: "d",
      event_display_type: "Maintenance",
      time_period_seconds: 60,
      asset_filter: [{ or: ["attributes.kind=none"] }],
    });
    const dynamic = await policy({
      compliance_type: "COMPLIANCE_DYNAMIC_TOLERANCE",
      event_display_type: "Start",
      closing_event_display_type: "End",
      dynamic_window: 600,
      dynamic_variability: 1.5,
      asset_filter: [{ or: ["attributes.kind=none"] }],
    });
    const got = await s.api(`/archivist/v1/${since}`, { token });
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({
      identity: since,
      compliance_type: "COMPLIANCE_SINCE",
      display_name: "Serviced hourly",
      event_display_type: "Maintenance",
      time_period_seconds: "60",
      asset_filter: [{ or: ["attributes.kind=none"] }],
    });
    expect(await (await s.api(`/archivist/v1/${dynamic}`, { token })).json()).toMatchObject({
      dynamic_window: "600",
      dynamic_variability: 1.5,
    });

    const list = async (query: string) => {
      const res = await s.api(`${POLICIES}${query}`, { token });
      expect(res.status).toBe(200);
      return ((await res.json()) as { compliance_policies: Policy[] }).compliance_policies;
    };
    const sinceOnly = await list("?compliance_type=COMPLIANCE_SINCE");
    expect(sinceOnly.map((p) => p.identity)).toContain(since);
    expect(sinceOnly.every((p) => p.compliance_type === "COMPLIANCE_SINCE")).toBe(true);
    const dynamicOnly = await list("?compliance_type=COMPLIANCE_DYNAMIC_TOLERANCE");
    expect(dynamicOnly.map((p) => p.identity)).toEqual([dynamic]);
    expect((await list("")).map((p) => p.identity)).toEqual(expect.arrayContaining([since, dynamic]));
    expect((await s.api(`${POLICIES}?compliance_type=COMPLIANCE_MAGIC`, { token })).status).toBe(400);

    expect((await s.api(`/archivist/v1/${since}`, { method: "DELETE", token })).status).toBe(200);
    expect((await s.api(`/archivist/v1/${since}`, { token })).status).toBe(404);
    expect((await s.api(`/archivist/v1/${since}`, { method: "DELETE", token })).status).toBe(404);
    expect((await list("")).map((p) => p.identity)).not.toContain(since);

    // Tenancy B has a quota of one policy and does not see A's.
    const tb = await s.token(s.b);
    expect((await s.api(`/archivist/v1/${dynamic}`, { token: tb })).status).toBe(404);
    const body = { compliance_type: "COMPLIANCE_RICHNESS", richness_assertions: [{ or: ["rating>1"] }] };
    const first = await s.api(POLICIES, { method: "POST", token: tb, json: body });
    expect(first.status).toBe(200);
    const over = await s.api(POLICIES, { method: "POST", token: tb, json: body });
    expect(over.status).toBe(402);
    expect(((await over.json()) as { code: number }).code).toBe(8);
    // Deleting frees the place.
    const firstId = ((await first.json()) as Policy).identity;
    expect((await s.api(`/archivist/v1/${firstId}`, { method: "DELETE", token: tb })).status).toBe(200);
    expect((await s.api(POLICIES, { method: "POST", token: tb, json: body })).status).toBe(200);
  });

  it("answers 404 for an asset that does not exist or belongs to another tenancy, 400 for a bad compliant_at", async () => {
    const a = await asset({ kind: "lookup" });
    expect((await s.api(`/archivist/v1/compliance/assets/${a.split("/")[1]}`, { token })).status).toBe(200);
    const tb = await s.token(s.b);
    expect((await s.api(`/archivist/v1/compliance/assets/${a.split("/")[1]}`, { token: tb })).status).toBe(
      404,
    );
    expect(
      (await s.api("/archivist/v1/compliance/assets/00000000-0000-4000-8000-000000000000", { token })).status,
    ).toBe(404);
    expect(
      (await s.api(`/archivist/v1/compliance/assets/${a.split("/")[1]}?compliant_at=yesterday`, { token }))
        .status,
    ).toBe(400);
  });

  it("applies exactly the policies whose asset_filter matches the asset", async () => {
    const red = await asset({ kind: "filtered", team: "red" });
    const blue = await asset({ kind: "filtered", team: "blue" });
    const forRed = await policy({
      compliance_type: "COMPLIANCE_SINCE",
      event_display_type: "Check",
      time_period_seconds: "3600",
      asset_filter: [{ or: ["attributes.team=red"] }, { or: ["attributes.kind=filtered"] }],
    });
    const forBoth = await policy({
      compliance_type: "COMPLIANCE_RICHNESS",
      richness_assertions: [{ or: ["team!=green"] }],
      asset_filter: [{ or: ["attributes.team=red", "attributes.team=blue"] }],
    });
    const r = await status(red);
    expect(r.compliance.map((c) => c.compliance_policy_identity).sort()).toEqual([forRed, forBoth].sort());
    // No Check event yet: the SINCE policy fails, so the asset is not compliant overall.
    expect(verdict(r, forRed)?.compliant).toBe(false);
    expect(verdict(r, forBoth)?.compliant).toBe(true);
    expect(r.compliant).toBe(false);
    const b = await status(blue);
    expect(b.compliance.map((c) => c.compliance_policy_identity)).toEqual([forBoth]);
    expect(b.compliant).toBe(true);
    expect(Number.isNaN(Date.parse(b.compliant_at))).toBe(false);
  });

  it("SINCE: passes within the period, fails after it, and answers historically", async () => {
    const a = await asset({ kind: "since" });
    const id = await policy({
      compliance_type: "COMPLIANCE_SINCE",
      event_display_type: "Maintenance",
      time_period_seconds: "7200",
      asset_filter: [{ or: ["attributes.kind=since"] }],
    });
    // No Maintenance event at all: not compliant.
    const none = verdict(await status(a), id);
    expect(none?.compliant).toBe(false);
    expect(none?.reason).not.toBe("");
    await event(a, "Maintenance", hours(3));
    // Three hours ago is past the two-hour period; two hours ago it was within it.
    expect(verdict(await status(a), id)?.compliant).toBe(false);
    expect(verdict(await status(a, hours(2)), id)?.compliant).toBe(true);
    await event(a, "Maintenance", hours(0.5));
    const now = await status(a);
    expect(verdict(now, id)).toMatchObject({ compliant: true });
    expect(verdict(now, id)?.reason.length).toBeGreaterThan(5);
    // Before the fixing event (and after the period lapsed): not compliant then.
    expect(verdict(await status(a, hours(0.75)), id)?.compliant).toBe(false);
    // Before any event: not compliant either.
    expect(verdict(await status(a, hours(4)), id)?.compliant).toBe(false);
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
    // A pair of two hours breaks the one-hour period: failing now, passing before it closed.
    await event(a, "Open", hours(3), { arc_correlation_value: "c2" });
    await event(a, "Close", hours(1), { arc_correlation_value: "c2" });
    const broken = verdict(await status(a), per);
    expect(broken?.compliant).toBe(false);
    expect(broken?.reason).not.toBe("");
    expect(verdict(await status(a, hours(4)), per)?.compliant).toBe(true);
    expect(verdict(await status(a), cur)?.compliant).toBe(true);
    // An Open that is never closed breaks CURRENT_OUTSTANDING from then on.
    await event(a, "Open", hours(0.5), { arc_correlation_value: "c3" });
    const open = await status(a);
    expect(verdict(open, cur)?.compliant).toBe(false);
    expect(open.compliant).toBe(false);
    expect(verdict(await status(a, hours(0.75)), cur)?.compliant).toBe(true);
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
    const rerate = await postEvent(
      s,
      token,
      a,
      evidence({ arc_display_type: "rerate" }, { asset_attributes: { rating: "150" } }),
    );
    expect(rerate.status).toBe(200);
    const failing = verdict(await status(a), id);
    expect(failing?.compliant).toBe(false);
    expect(failing?.reason).toContain("rating");
    expect(verdict(await status(a, before), id)?.compliant).toBe(true);
    const unrelated = await asset({ kind: "other" });
    expect(verdict(await status(unrelated), id)).toBeUndefined();
  });

  it("RICHNESS reads the asset as the events declared by compliant_at left it", async () => {
    const a = await asset({ kind: "declared", rating: "9" });
    const id = await policy({
      compliance_type: "COMPLIANCE_RICHNESS",
      richness_assertions: [{ or: ["rating<100"] }],
      asset_filter: [{ or: ["attributes.kind=declared"] }],
    });
    // Recorded now, declared two hours ago: the rating broke the policy then.
    const res = await s.api(`/archivist/v2/${a}/events`, {
      method: "POST",
      token,
      json: {
        operation: "Record",
        behaviour: "RecordEvidence",
        timestamp_declared: hours(2),
        event_attributes: { arc_display_type: "rerate" },
        asset_attributes: { rating: "150" },
      },
    });
    expect(res.status).toBe(200);
    expect(verdict(await status(a), id)?.compliant).toBe(false);
    expect(verdict(await status(a, hours(1)), id)?.compliant).toBe(false);
    expect(verdict(await status(a, hours(3)), id)?.compliant).toBe(true);
    // Fixed by an event declared an hour ago.
    await s.api(`/archivist/v2/${a}/events`, {
      method: "POST",
      token,
      json: {
        operation: "Record",
        behaviour: "RecordEvidence",
        timestamp_declared: hours(1),
        event_attributes: { arc_display_type: "rerate" },
        asset_attributes: { rating: "50" },
      },
    });
    expect(verdict(await status(a), id)?.compliant).toBe(true);
    expect(verdict(await status(a, hours(1.5)), id)?.compliant).toBe(false);
    const unrelated = await asset({ kind: "other" });
    expect(verdict(await status(unrelated), id)).toBeUndefined();
  });
});
