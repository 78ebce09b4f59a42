import { describe, expect, it } from "vitest";
import { grantAccess } from "../../helpers/access-policy.js";
import { evidence, postEvent } from "../../helpers/records.js";
import { forSuite, twoTenancies } from "../../helpers/service.js";

const suite = forSuite(() => twoTenancies());

const SELF = "/archivist/iam/v1/subjects/00000000-0000-0000-0000-000000000000:export";
type Asset = { identity: string; attributes: Record<string, unknown>; public: boolean };

async function importSelf(from: string, into: string): Promise<string> {
  const { subject_string } = (await (await suite.s.api(SELF, { token: from })).json()) as {
    subject_string: string;
  };
  const res = await suite.s.api("/archivist/iam/v1/subjects:import", {
    method: "POST",
    token: into,
    json: { subject_string },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { identity: string }).identity;
}

async function bSees(): Promise<{ assets: Asset[]; count: string | null; events: number }> {
  const res = await suite.s.api("/archivist/v2/assets?attributes.team=shared", {
    token: suite.tb,
    headers: { "x-request-total-count": "true" },
  });
  const events = (await (
    await suite.s.api("/archivist/v2/assets/-/events?event_attributes.arc_display_type=note", {
      token: suite.tb,
    })
  ).json()) as { events: unknown[] };
  return {
    assets: ((await res.json()) as { assets: Asset[] }).assets,
    count: res.headers.get("x-total-count"),
    events: events.events.length,
  };
}

describe("OBAC sharing between tenancies", () => {
  it("shares only the permitted attributes once both organisations imported each other's Self, and never before", async () => {
    const asset = (await (
      await suite.s.api("/archivist/v2/assets", {
        method: "POST",
        token: suite.ta,
        json: { attributes: { arc_display_type: "call", team: "shared", secret: "only A" } },
      })
    ).json()) as Asset;
    await postEvent(suite.s, suite.ta, asset.identity, evidence({ arc_display_type: "note" }));
    const bInA = await importSelf(suite.tb, suite.ta);
    await grantAccess(suite.s, suite.ta, "share with B", "attributes.team=shared", {
      subjects: [bInA],
      asset_attributes_read: ["team", "arc_display_type"],
      event_arc_display_type_read: ["note"],
    });
    expect(await bSees()).toEqual({ assets: [], count: "0", events: 0 });
    expect((await suite.s.api(`/archivist/v2/${asset.identity}`, { token: suite.tb })).status).toBe(404);
    await importSelf(suite.ta, suite.tb);
    const seen = await bSees();
    expect(seen.assets.map((a) => a.identity)).toEqual([asset.identity]);
    expect(seen.assets[0]?.attributes).toEqual({ arc_display_type: "call", team: "shared" });
    expect(seen.count).toBe("1");
    expect(seen.events).toBe(1);
    expect(
      (await postEvent(suite.s, suite.tb, asset.identity, evidence({ arc_display_type: "note" }))).status,
    ).toBe(404); // only the creating tenancy writes: for writing, another tenancy cannot even address the asset
    expect((await suite.s.api(`/archivist/v2/${asset.identity}:publicurl`, { token: suite.tb })).status).toBe(
      400,
    );
    const other = (await (
      await suite.s.api("/archivist/v2/assets", {
        method: "POST",
        token: suite.ta,
        json: { attributes: { team: "private" } },
      })
    ).json()) as Asset;
    expect((await suite.s.api(`/archivist/v2/${other.identity}`, { token: suite.tb })).status).toBe(404);
    // Withdrawing the share takes effect at once, though who shares with whom is cached briefly.
    const removed = await suite.s.api(`/archivist/iam/v1/${bInA}`, { method: "DELETE", token: suite.ta });
    expect(removed.status, await removed.clone().text()).toBe(200);
    expect(await bSees()).toEqual({ assets: [], count: "0", events: 0 });
  });
});
