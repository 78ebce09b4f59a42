import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../helpers/poll.js";
import { plainApplication, startTestService, type TestService } from "../../helpers/service.js";

// The auditor's console opens the record at a log position ("log entry N", as receipts name it)
// through `GET /archivist/v1/merklelogs/{tenant}/entries/{index}`. The log itself is public (its
// tiles are), so the entry answers anyone; the record it holds is named only to a caller who may
// read that record, exactly as the record's own route would let them: no index reveals a record.
let s: TestService;
let tenant: string;
let owner: string;
const at: Record<"private" | "public" | "free", { identity: string; index: number }> = {
  private: { identity: "", index: -1 },
  public: { identity: "", index: -1 },
  free: { identity: "", index: -1 },
};

type Rec = {
  identity: string;
  confirmation_status: string;
  merklelog_entry?: { commit?: { index?: string } };
  merklelog_commit?: { index?: string };
};

beforeAll(async () => {
  s = await startTestService();
  owner = await s.token(s.a);
  const post = async (path: string, json: unknown) =>
    (await (await s.api(path, { method: "POST", token: owner, json })).json()) as { identity: string };
  const event = {
    operation: "Record",
    behaviour: "RecordEvidence",
    event_attributes: { arc_display_type: "call" },
  };
  const priv = await post("/archivist/v2/assets", { attributes: { arc_display_type: "call" } });
  const pub = await post("/archivist/v2/assets", { attributes: { arc_display_type: "call" }, public: true });
  at.private.identity = (await post(`/archivist/v2/${priv.identity}/events`, event)).identity;
  at.public.identity = (await post(`/archivist/v2/${pub.identity}/events`, event)).identity;
  at.free.identity = (
    await post("/archivist/v1/events", { attributes: { arc_display_type: "call" } })
  ).identity;
  for (const [kind, path] of [
    ["private", `/archivist/v2/${at.private.identity}`],
    ["public", `/archivist/v2/${at.public.identity}`],
    ["free", `/archivist/v1/${at.free.identity}`],
  ] as const)
    at[kind].index = await until(async () => {
      await s.service.workers.flush();
      const r = (await (await s.api(path, { token: owner })).json()) as Rec;
      // An asset event's log position, or an asset-free event's (DataTrails' two field shapes).
      const index = r.merklelog_entry?.commit?.index ?? r.merklelog_commit?.index;
      return ["CONFIRMED", "UNEQUIVOCAL"].includes(r.confirmation_status) && index
        ? Number(index)
        : undefined;
    }, 30_000);
  const self = (await (await s.api("/archivist/v1/tenancies/self", { token: owner })).json()) as {
    identity: string;
  };
  tenant = self.identity.replace("tenant/", "");
}, 60_000);
afterAll(() => s?.stop());

const named = async (index: number, token?: string) => {
  const res = await s.api(`/archivist/v1/merklelogs/${tenant}/entries/${index}`, token ? { token } : {});
  expect(res.status).toBe(200);
  return ((await res.json()) as { identity: string }).identity;
};

describe("a log entry names its record only to a caller who may read it", () => {
  it("names each record to the tenancy's administrator, as its own route does", async () => {
    expect(await named(at.private.index, owner)).toBe(at.private.identity);
    expect(await named(at.free.index, owner)).toBe(at.free.identity);
    expect(await named(at.public.index, owner)).toBe(
      at.public.identity.replace(/^assets\//, "publicassets/"),
    );
  });

  it("names no private record to an application without a policy, another tenancy or no token; a public one to anyone", async () => {
    const plain = (await plainApplication(s, owner)).token;
    const other = await s.token(s.b);
    for (const token of [plain, other, undefined]) {
      expect(await named(at.private.index, token)).toBe("");
      expect(await named(at.free.index, token)).toBe("");
      expect(await named(at.public.index, token)).toBe(
        at.public.identity.replace(/^assets\//, "publicassets/"),
      );
    }
    // The record's own route refuses the same callers: the index tells them nothing more.
    expect(
      (await s.api(`/archivist/v2/${at.private.identity}`, { token: plain })).status,
    ).toBeGreaterThanOrEqual(400);
  });

  it("answers 404 for a position that holds no entry", async () => {
    const res = await s.api(`/archivist/v1/merklelogs/${tenant}/entries/999999`, { token: owner });
    expect(res.status).toBe(404);
  });
});
