import { describe, expect, it } from "vitest";
import { serviceForSuite } from "../../helpers/service.js";

const suite = serviceForSuite();
const post = (path: string, json: unknown) => suite.s.api(path, { method: "POST", token: suite.token, json });

describe("text the database cannot store (NUL, unpaired surrogates)", () => {
  it("is refused with 400 and never fails the requests written in the same group", async () => {
    const asset = (await (
      await post("/archivist/v2/assets", { attributes: { arc_display_type: "t" } })
    ).json()) as {
      identity: string;
    };
    const bad = ["a\u0000b", "x\ud800y"];
    const good = Array.from({ length: 20 }, (_, i) => String(i));
    const replies = await Promise.all([
      ...bad.flatMap((v) => [
        post("/archivist/v1/events", { attributes: { k: v } }),
        post("/archivist/v1/events", { attributes: { k: "v" }, trails: [v] }),
        post("/archivist/v1/events", { attributes: { [`k${v}`]: "v" } }),
        post("/archivist/v1/events", { attributes: { k: "v" }, event_type: v }),
        post(`/archivist/v2/${asset.identity}/events`, {
          operation: "Record",
          behaviour: "RecordEvidence",
          event_attributes: { k: v },
        }),
        post(`/archivist/v2/${asset.identity}/events`, {
          operation: "Record",
          behaviour: "RecordEvidence",
          event_attributes: { k: { nested: [v] } },
        }),
        post("/archivist/v2/assets", { attributes: { arc_display_type: v } }),
      ]),
      ...good.map((v) => post("/archivist/v1/events", { attributes: { k: v } })),
      ...good.map((v) =>
        post(`/archivist/v2/${asset.identity}/events`, {
          operation: "Record",
          behaviour: "RecordEvidence",
          event_attributes: { k: v },
        }),
      ),
    ]);
    const statuses = replies.map((r) => r.status);
    expect(statuses.slice(0, 14)).toEqual(Array(14).fill(400));
    expect(statuses.slice(14)).toEqual(Array(40).fill(200));
    const body = (await replies[0]?.json()) as { code: number; message: string };
    expect(body.code).toBe(3);
    expect(body.message).toMatch(/NUL|surrogate/);
  });

  it("names where the bad text is, and still refuses bodies nested too deep", async () => {
    const keyed = await post("/archivist/v1/events", { attributes: { outer: { "a\u0000": "v" } } });
    expect(keyed.status).toBe(400);
    expect(((await keyed.json()) as { message: string }).message).toBe(
      "attributes.outer.<key> contains a NUL character or an unpaired surrogate",
    );
    const listed = await post("/archivist/v1/events", { attributes: { k: "v" }, trails: ["ok", "\ud800"] });
    expect(((await listed.json()) as { message: string }).message).toMatch(/^trails\[1\] contains/);
    let deep: unknown = "v";
    for (let i = 0; i < 70; i++) deep = [deep];
    const nested = await post("/archivist/v1/events", { attributes: { k: deep } });
    expect(nested.status).toBe(400);
    expect(((await nested.json()) as { message: string }).message).toMatch(/nested deeper than 64/);
  });

  it("draws the depth limit at the same place whether or not the body escapes a character", async () => {
    // The event's outer array sits at depth 2 (body, attributes): wrapped n times, the innermost at n + 1.
    const body = (wraps: number, escaped: boolean) => {
      const deep = `${"[".repeat(wraps)}"v"${"]".repeat(wraps)}`;
      return `{"attributes":{"k":${deep},"e":"${escaped ? "\\u0041" : "A"}"}}`;
    };
    for (const escaped of [false, true]) {
      const send = (wraps: number) =>
        suite.s.api("/archivist/v1/events", {
          method: "POST",
          token: suite.token,
          headers: { "content-type": "application/json" },
          body: body(wraps, escaped),
        });
      const under = await send(62);
      const over = await send(63);
      expect(over.status, `escaped ${escaped}`).toBe(400);
      expect(((await over.json()) as { message: string }).message).toMatch(/nested deeper than 64/);
      expect(((await under.json()) as { message?: string }).message ?? "", `escaped ${escaped}`).not.toMatch(
        /nested deeper/,
      );
    }
  });

  it("is refused in query strings, path segments and form bodies too", async () => {
    for (const path of [
      "/archivist/iam/v1/access_policies?display_name=%00",
      "/archivist/v1/invites?email=a%00b",
      "/archivist/v2/assets?attributes.k%00=1",
      "/archivist/v1/events/a%00b",
    ]) {
      const r = await suite.s.api(path, { token: suite.token });
      expect(r.status, path).toBe(400);
      expect(((await r.json()) as { message: string }).message, path).toMatch(
        /NUL character or an unpaired surrogate/,
      );
    }
    const form = await suite.s.api("/archivist/iam/v1/appidp/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials&client_id=a%00b&client_secret=x",
    });
    expect(form.status).toBe(400);
  });
});
