import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applicationSubject, grantAccess } from "../../helpers/access-policy.js";
import { evidence, postEvent } from "../../helpers/records.js";
import { plainApplication, startTestService, type TestService } from "../../helpers/service.js";

// The auditor's table of assets: counts and newest event times of the events the caller may
// read, sorted, filtered by text, paged; on the project's engine (PGlite or PostgreSQL).
let s: TestService;
let admin: string;
type Summary = {
  identity: string;
  attributes: Record<string, unknown>;
  event_count: number;
  last_event_at: string;
  confirmation_status: string;
};
type Page = { assets: Summary[]; next_page_token: string };
const ids: Record<string, string> = {};

async function list(token: string, query: string): Promise<Page> {
  const r = await s.api(`/archivist/v2/assets/-/summaries?${query}`, { token });
  expect(r.status, await r.clone().text()).toBe(200);
  return (await r.json()) as Page;
}

async function asset(token: string, attributes: Record<string, string>, events: string[]): Promise<string> {
  const a = await s.api("/archivist/v2/assets", { method: "POST", token, json: { attributes } });
  const id = ((await a.json()) as { identity: string }).identity;
  for (const type of events) {
    const e = await postEvent(s, token, id, evidence({ arc_display_type: type }));
    expect(e.status, await e.clone().text()).toBe(200);
  }
  return id;
}

beforeAll(async () => {
  s = await startTestService();
  admin = await s.token(s.a);
  // Created in this order; "Zebra call" gets its last event after "Alpha call" was created.
  ids.alpha = await asset(
    admin,
    { arc_display_name: "Alpha call", arc_display_type: "vcon", subject: "vcon://alpha", team: "blue" },
    ["vcon_created", "vcon_updated"],
  );
  ids.zebra = await asset(
    admin,
    { arc_display_name: "Zebra call", arc_display_type: "vcon", team: "red" },
    [],
  );
  ids.doc = await asset(admin, { arc_display_name: "Policy document", arc_display_type: "Document" }, [
    "published",
  ]);
  await postEvent(s, admin, ids.zebra, evidence({ arc_display_type: "late" }));
  await asset(await s.token(s.b), { arc_display_name: "Alpha of B", arc_display_type: "vcon" }, ["x"]);
});
afterAll(() => s?.stop());

describe("GET /archivist/v2/assets/-/summaries", () => {
  it("gives each readable asset its event count (creation included) and newest event time", async () => {
    const page = await list(admin, "");
    expect(page.assets.map((a) => a.identity)).toEqual([ids.doc, ids.zebra, ids.alpha]);
    const alpha = page.assets.find((a) => a.identity === ids.alpha);
    expect(alpha).toMatchObject({ event_count: 3, attributes: { arc_display_name: "Alpha call" } });
    expect(Date.parse(alpha?.last_event_at ?? "")).not.toBeNaN();
    expect(page.assets.find((a) => a.identity === ids.zebra)?.event_count).toBe(2);
  });

  it("sorts by newest event and by name", async () => {
    const byEvent = await list(admin, "order_by=LAST_EVENT");
    expect(byEvent.assets.map((a) => a.identity)).toEqual([ids.zebra, ids.doc, ids.alpha]);
    const byName = await list(admin, "order_by=NAME");
    expect(byName.assets.map((a) => a.attributes.arc_display_name)).toEqual([
      "Alpha call",
      "Policy document",
      "Zebra call",
    ]);
  });

  it("filters by text in the name, subject or type, any case, with % and _ taken literally", async () => {
    expect((await list(admin, "q=ZEBRA")).assets.map((a) => a.identity)).toEqual([ids.zebra]);
    expect((await list(admin, "q=vcon%3A%2F%2Falp")).assets.map((a) => a.identity)).toEqual([ids.alpha]);
    expect((await list(admin, "q=document")).assets.map((a) => a.identity)).toEqual([ids.doc]);
    expect((await list(admin, "q=vcon&order_by=NAME")).assets.map((a) => a.identity)).toEqual([
      ids.alpha,
      ids.zebra,
    ]);
    expect((await list(admin, "q=%25")).assets).toEqual([]);
    expect((await list(admin, "q=_")).assets).toEqual([]);
  });

  it("pages with its tokens, keeping the order and filter, and counts when asked", async () => {
    const first = await list(admin, "order_by=NAME&page_size=2");
    expect(first.assets).toHaveLength(2);
    expect(first.next_page_token).not.toBe("");
    const second = await list(admin, `page_token=${encodeURIComponent(first.next_page_token)}`);
    expect([...first.assets, ...second.assets].map((a) => a.attributes.arc_display_name)).toEqual([
      "Alpha call",
      "Policy document",
      "Zebra call",
    ]);
    expect(second.next_page_token).toBe("");
    const counted = await s.api("/archivist/v2/assets/-/summaries?page_size=1", {
      token: admin,
      headers: { "x-request-total-count": "true" },
    });
    expect(counted.headers.get("x-total-count")).toBe("3");
    const foreign = await s.api(
      `/archivist/v2/assets/-/summaries?page_token=${encodeURIComponent(first.next_page_token)}`,
      { token: await s.token(s.b) },
    );
    expect(foreign.status).toBe(400);
  });

  it("shows a policy reader only what it may read: its assets, and only the events of types it may read", async () => {
    const { clientId, token: reader } = await plainApplication(s, admin, { display_name: "summary reader" });
    expect((await list(reader, "")).assets).toEqual([]);
    await grantAccess(s, admin, "reader reads blue vCon creations", "attributes.team=blue", {
      asset_attributes_read: ["arc_display_type", "subject"],
      event_arc_display_type_read: ["vcon_created"],
      behaviours: [],
      event_arc_display_type_write: [],
      asset_attributes_write: [],
      ...applicationSubject(clientId),
    });
    const seen = await list(reader, "");
    expect(seen.assets.map((a) => [a.identity, a.event_count])).toEqual([[ids.alpha, 1]]);
    expect(seen.assets[0]?.attributes).not.toHaveProperty("arc_display_name");
    // The name is hidden from the reader: a filter on it finds nothing, the subject still finds.
    expect((await list(reader, "q=call")).assets).toEqual([]);
    expect((await list(reader, "q=vcon%3A%2F%2Falpha")).assets).toHaveLength(1);
  });

  it("refuses an unknown order, an over-long text, and a call without a token", async () => {
    for (const q of ["order_by=SIZE", `q=${"x".repeat(300)}`]) {
      const r = await s.api(`/archivist/v2/assets/-/summaries?${q}`, { token: admin });
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
    }
    expect((await s.api("/archivist/v2/assets/-/summaries")).status).toBe(401);
  });
});
