import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService, twoTenancies } from "../../helpers/service.js";

let s: TestService;
let ta: string;
let tb: string;
beforeAll(async () => {
  ({ s, ta, tb } = await twoTenancies({}, { locations: 1, asset_free_events: 2 }));
});
afterAll(() => s?.stop());

type Location = {
  identity: string;
  display_name: string;
  latitude: number;
  attributes: Record<string, unknown>;
};

describe("locations", () => {
  it("creates, reads, filters, patches, sets permissions and deletes", async () => {
    const res = await s.api("/archivist/v2/locations", {
      method: "POST",
      token: ta,
      json: {
        display_name: "Call centre",
        description: "floor 2",
        latitude: 51.5,
        longitude: -0.1,
        attributes: { site: "ldn" },
      },
    });
    expect(res.status).toBe(200);
    const loc = (await res.json()) as Location;
    expect(loc.identity).toMatch(/^locations\//);
    const list = (await (
      await s.api("/archivist/v2/locations?display_name=Call%20centre&attributes.site=ldn", { token: ta })
    ).json()) as { locations: Location[] };
    expect(list.locations.map((l) => l.identity)).toEqual([loc.identity]);
    const patched = (await (
      await s.api(`/archivist/v2/${loc.identity}`, {
        method: "PATCH",
        token: ta,
        json: { display_name: "HQ" },
      })
    ).json()) as Location;
    expect(patched.display_name).toBe("HQ");
    expect(patched.latitude).toBe(51.5);
    const perms = await s.api(`/archivist/v2/${loc.identity}/permissions`, {
      method: "PATCH",
      token: ta,
      json: { permissions: { subject_identities: ["subjects/00000000-0000-0000-0000-000000000000"] } },
    });
    expect(perms.status).toBe(200);
    expect(
      (
        (await (await s.api(`/archivist/v2/${loc.identity}/permissions`, { token: ta })).json()) as {
          permissions: { subject_identities: string[] };
        }
      ).permissions.subject_identities,
    ).toHaveLength(1);
    expect((await s.api(`/archivist/v2/${loc.identity}`, { token: tb })).status).toBe(404);
    const asset = await s.api("/archivist/v2/assets", {
      method: "POST",
      token: ta,
      json: { attributes: { arc_home_location_identity: loc.identity } },
    });
    expect(asset.status).toBe(200);
    const badHome = await s.api("/archivist/v2/assets", {
      method: "POST",
      token: ta,
      json: { attributes: { arc_home_location_identity: "locations/00000000-0000-4000-8000-000000000000" } },
    });
    expect(badHome.status).toBe(400);
    expect((await s.api(`/archivist/v2/${loc.identity}`, { method: "DELETE", token: ta })).status).toBe(200);
    expect((await s.api(`/archivist/v2/${loc.identity}`, { token: ta })).status).toBe(404);
    const badLat = await s.api("/archivist/v2/locations", {
      method: "POST",
      token: ta,
      json: { latitude: 123 },
    });
    expect(badLat.status).toBe(400);
  });

  it("answers 402 past the locations quota", async () => {
    expect(
      (await s.api("/archivist/v2/locations", { method: "POST", token: tb, json: { display_name: "one" } }))
        .status,
    ).toBe(200);
    expect(
      (await s.api("/archivist/v2/locations", { method: "POST", token: tb, json: { display_name: "two" } }))
        .status,
    ).toBe(402);
  });
});

describe("asset-free events", () => {
  it("creates and reads, refusing bodies over 64 KB", async () => {
    const res = await s.api("/archivist/v1/events", {
      method: "POST",
      token: ta,
      json: { attributes: { k: "v" }, trails: ["vcon://x"], event_type: "t" },
    });
    expect(res.status).toBe(200);
    const ev = (await res.json()) as {
      identity: string;
      confirmation_status: string;
      created_at: number;
      origin_tenant: string;
    };
    expect(ev.identity).toMatch(/^events\//);
    expect(typeof ev.created_at).toBe("number");
    expect((await s.api(`/archivist/v1/${ev.identity}`, { token: ta })).status).toBe(200);
    expect((await s.api(`/archivist/v1/${ev.identity}`, { token: tb })).status).toBe(404);
    const big = await s.api("/archivist/v1/events", {
      method: "POST",
      token: ta,
      json: { attributes: { k: "x".repeat(70_000) } },
    });
    expect(big.status).toBe(400);
  });

  it("answers 402 past the asset-free events quota", async () => {
    const post = () =>
      s.api("/archivist/v1/events", { method: "POST", token: tb, json: { attributes: { n: "1" } } });
    expect([(await post()).status, (await post()).status, (await post()).status]).toEqual([200, 200, 402]);
  });

  it("admits concurrent creates up to the quota exactly, each stored with its own body", async () => {
    const q = await startTestService({}, { asset_free_events: 5 });
    try {
      const token = await q.token(q.b);
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          q.api("/archivist/v1/events", {
            method: "POST",
            token,
            json: { attributes: { n: String(i) }, trails: [`vcon://${i}`, "shared"], event_type: `t${i}` },
          }),
        ),
      );
      const statuses = replies.map((r) => r.status);
      expect(statuses.filter((c) => c === 200)).toHaveLength(5);
      expect(statuses.filter((c) => c === 402)).toHaveLength(7);
      for (const r of replies.filter((x) => x.status === 200)) {
        const ev = (await r.json()) as {
          identity: string;
          attributes: { n: string };
          trails: string[];
          event_type: string;
        };
        expect(ev.trails).toEqual([`vcon://${ev.attributes.n}`, "shared"]);
        expect(ev.event_type).toBe(`t${ev.attributes.n}`);
        const read = (await (await q.api(`/archivist/v1/${ev.identity}`, { token })).json()) as typeof ev;
        expect(read).toMatchObject({
          attributes: ev.attributes,
          trails: ev.trails,
          event_type: ev.event_type,
        });
      }
      const search = await q.api("/archivist/v1/events/search", {
        method: "POST",
        token,
        json: { filter: "trails/any(t: t eq 'shared')" },
      });
      expect(search.headers.get("x-total-count")).toBe("5");
    } finally {
      await q.stop();
    }
  });
});
