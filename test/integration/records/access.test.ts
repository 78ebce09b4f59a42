import { describe, expect, it } from "vitest";
import { applicationSubject, grantAccess } from "../../helpers/access-policy.js";
import { evidence, postEvent } from "../../helpers/records.js";
import { adminAndReader, forSuite } from "../../helpers/service.js";

const suite = forSuite(() => adminAndReader({ display_name: "reader", custom_claims: { team: "blue" } }));

type Asset = { identity: string; attributes: Record<string, unknown> };
type Event = {
  identity: string;
  event_attributes: Record<string, unknown>;
  principal_accepted: { issuer: string; subject: string };
};

async function json<T>(res: Promise<Response>): Promise<T> {
  return (await (await res).json()) as T;
}

describe("access enforcement (secured by default, ABAC)", () => {
  let blue: Asset;
  it("a new identity sees and writes nothing before a policy", async () => {
    blue = await json<Asset>(
      suite.s.api("/archivist/v2/assets", {
        method: "POST",
        token: suite.admin,
        json: { attributes: { arc_display_type: "call", team: "blue", secret: "s3cr3t" } },
      }),
    );
    await suite.s.api("/archivist/v2/assets", {
      method: "POST",
      token: suite.admin,
      json: { attributes: { arc_display_type: "call", team: "red" } },
    });
    for (const t of ["vcon_created", "vcon_redacted"])
      await postEvent(suite.s, suite.admin, blue.identity, evidence({ arc_display_type: t }));
    const list = await suite.s.api("/archivist/v2/assets", {
      token: suite.reader,
      headers: { "x-request-total-count": "true" },
    });
    expect(((await list.json()) as { assets: Asset[] }).assets).toEqual([]);
    expect(list.headers.get("x-total-count")).toBe("0");
    expect((await suite.s.api(`/archivist/v2/${blue.identity}`, { token: suite.reader })).status).toBe(404);
    expect(
      (await json<{ events: Event[] }>(suite.s.api("/archivist/v2/assets/-/events", { token: suite.reader })))
        .events,
    ).toEqual([]);
    expect(
      (
        await suite.s.api(`/archivist/v2/${blue.identity}/events`, {
          method: "POST",
          token: suite.reader,
          json: { operation: "Record", behaviour: "RecordEvidence" },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await suite.s.api("/archivist/v2/assets", {
          method: "POST",
          token: suite.reader,
          json: { attributes: { team: "blue" } },
        })
      ).status,
    ).toBe(403);
  });

  it("after a policy, sees exactly the permitted assets, attributes and event types; the policy is audited", async () => {
    const policy = await grantAccess(suite.s, suite.admin, "blue team reads calls", "attributes.team=blue", {
      asset_attributes_read: ["arc_display_type", "team"],
      event_arc_display_type_read: ["vcon_created"],
      behaviours: ["RecordEvidence"],
      event_arc_display_type_write: ["vcon_note"],
      asset_attributes_write: [],
      ...applicationSubject(suite.readerId),
    });
    const list = await suite.s.api("/archivist/v2/assets", {
      token: suite.reader,
      headers: { "x-request-total-count": "true" },
    });
    const assets = ((await list.json()) as { assets: Asset[] }).assets;
    expect(assets.map((a) => a.identity)).toEqual([blue.identity]);
    expect(assets[0]?.attributes).toEqual({ arc_display_type: "call", team: "blue" });
    expect(list.headers.get("x-total-count")).toBe("1");
    const events = await suite.s.api(`/archivist/v2/${blue.identity}/events`, {
      token: suite.reader,
      headers: { "x-request-total-count": "true" },
    });
    const types = ((await events.json()) as { events: Event[] }).events.map(
      (e) => e.event_attributes.arc_display_type,
    );
    expect(types).toEqual(["vcon_created"]);
    expect(events.headers.get("x-total-count")).toBe("1");
    const all = await json<{ events: Event[] }>(
      suite.s.api("/archivist/v2/assets/-/events", { token: suite.reader }),
    );
    expect(all.events.map((e) => e.event_attributes.arc_display_type)).toEqual(["vcon_created"]);
    const readerPosts = (event: unknown) => postEvent(suite.s, suite.reader, blue.identity, event);
    const ok = await readerPosts(evidence({ arc_display_type: "vcon_note" }));
    expect(ok.status).toBe(200);
    const refused = await readerPosts(evidence({ arc_display_type: "vcon_deleted" }));
    expect(refused.status).toBe(403);
    const changesAttr = await readerPosts(
      evidence({ arc_display_type: "vcon_note" }, { asset_attributes: { team: "red" } }),
    );
    expect(changesAttr.status).toBe(403);
    const audit = await json<{ events: Event[] }>(
      suite.s.api(
        `/archivist/v2/${blue.identity}/events?event_attributes.arc_display_type=arc_access_policy`,
        {
          token: suite.admin,
        },
      ),
    );
    expect(audit.events).toHaveLength(1);
    expect(audit.events[0]?.principal_accepted.issuer).toBe(`${suite.s.url}/internal`);
    expect(audit.events[0]?.principal_accepted.subject).toMatch(/^access_policies\//);
    const matches = await json<{ assets: Asset[] }>(
      suite.s.api(`/archivist/iam/v1/${policy}/assets`, {
        token: suite.admin,
      }),
    );
    expect(matches.assets.map((a) => a.identity)).toEqual([blue.identity]);
    const byAsset = await json<{ access_policies: unknown[] }>(
      suite.s.api(`/archivist/iam/v1/${blue.identity}/access_policies`, { token: suite.admin }),
    );
    expect(byAsset.access_policies).toHaveLength(1);
  });

  it("applies a changed or deleted policy to the very next request (policies are kept only briefly)", async () => {
    const policies = await json<{ access_policies: Array<{ identity: string }> }>(
      suite.s.api(`/archivist/iam/v1/${blue.identity}/access_policies`, { token: suite.admin }),
    );
    const policy = policies.access_policies[0]?.identity as string;
    const sees = async () =>
      (await suite.s.api(`/archivist/v2/${blue.identity}`, { token: suite.reader })).status;
    expect(await sees()).toBe(200);
    /** Lets only `subject` read the team attribute. */
    const grantTo = async (subject: string) => {
      const res = await suite.s.api(`/archivist/iam/v1/${policy}`, {
        method: "PATCH",
        token: suite.admin,
        json: {
          access_permissions: [
            { asset_attributes_read: ["team"], user_attributes: [{ or: [`subject=${subject}`] }] },
          ],
        },
      });
      expect(res.status).toBe(200);
    };
    // Narrowed to another subject: the reader no longer matches it.
    await grantTo("someone-else");
    expect(await sees()).toBe(404);
    await grantTo(suite.readerId);
    expect(await sees()).toBe(200);
    expect(
      (await suite.s.api(`/archivist/iam/v1/${policy}`, { method: "DELETE", token: suite.admin })).status,
    ).toBe(200);
    expect(await sees()).toBe(404);
    const list = await json<{ assets: Asset[] }>(
      suite.s.api("/archivist/v2/assets", { token: suite.reader }),
    );
    expect(list.assets).toEqual([]);
  });

  it("authorises an asset created with events as the creation and each event on their own would be", async () => {
    await grantAccess(
      suite.s,
      suite.admin,
      "green team creates calls and notes on them",
      "attributes.team=green",
      {
        asset_attributes_read: ["arc_display_type", "team"],
        behaviours: ["AssetCreator", "RecordEvidence"],
        event_arc_display_type_read: ["vcon_note"],
        event_arc_display_type_write: ["vcon_note"],
        asset_attributes_write: ["arc_display_type", "team"],
        ...applicationSubject(suite.readerId),
      },
    );
    const create = (team: string, type: string) =>
      suite.s.api("/archivist/v2/assets:withEvents", {
        method: "POST",
        token: suite.reader,
        json: {
          attributes: { arc_display_type: "call", team },
          events: [
            {
              operation: "Record",
              behaviour: "RecordEvidence",
              event_attributes: { arc_display_type: type },
            },
          ],
        },
      });
    // An asset outside the policy, and an event type it does not let the reader write: nothing stored.
    expect((await create("red", "vcon_note")).status).toBe(403);
    expect((await create("green", "vcon_deleted")).status).toBe(403);
    const none = await json<{ assets: Asset[] }>(
      suite.s.api("/archivist/v2/assets?attributes.team=green", { token: suite.admin }),
    );
    expect(none.assets).toEqual([]);
    const made = await create("green", "vcon_note");
    expect(made.status, await made.clone().text()).toBe(200);
    const { asset } = (await made.json()) as { asset: Asset };
    const events = await json<{ events: Event[] }>(
      suite.s.api(`/archivist/v2/${asset.identity}/events`, { token: suite.reader }),
    );
    expect(events.events.map((e) => e.event_attributes.arc_display_type)).toEqual(["vcon_note"]);
    // Each event is authorised against the asset before it changes it, as POST …/events is: this
    // one may move the asset out of the policy, as the reader may write `team` on a green asset.
    const moved = await suite.s.api("/archivist/v2/assets:withEvents", {
      method: "POST",
      token: suite.reader,
      json: {
        attributes: { arc_display_type: "call", team: "green" },
        events: [
          {
            operation: "Record",
            behaviour: "RecordEvidence",
            event_attributes: { arc_display_type: "vcon_note" },
            asset_attributes: { team: "red" },
          },
        ],
      },
    });
    expect(moved.status, await moved.clone().text()).toBe(200);
    const red = ((await moved.json()) as { asset: Asset }).asset;
    const read = await json<Asset>(suite.s.api(`/archivist/v2/${red.identity}`, { token: suite.admin }));
    expect(read.attributes.team).toBe("red");
    // A batch authorises each item as its own request: the refused one is stored nowhere.
    const batch = await suite.s.api("/archivist/v2/assets:batchWithEvents", {
      method: "POST",
      token: suite.reader,
      json: {
        requests: ["blue", "green"].map((team) => ({
          attributes: { arc_display_type: "call", team, batched: "yes" },
          events: [
            {
              operation: "Record",
              behaviour: "RecordEvidence",
              event_attributes: { arc_display_type: "vcon_note" },
            },
          ],
        })),
      },
    });
    expect(batch.status, await batch.clone().text()).toBe(200);
    const { responses } = (await batch.json()) as {
      responses: Array<{ asset?: Asset; error?: { status: number; code: number } }>;
    };
    expect(responses[0]?.error).toMatchObject({ status: 403, code: 7 });
    expect(responses[1]?.asset?.attributes.team).toBe("green");
    const batched = await json<{ assets: Asset[] }>(
      suite.s.api("/archivist/v2/assets?attributes.batched=yes", { token: suite.admin }),
    );
    expect(batched.assets.map((a) => a.attributes.team)).toEqual(["green"]);
  });

  it("authorises each item of an events batch as its own POST …/events would be", async () => {
    // The green policy of the test before: the reader sees green calls and writes notes on them.
    const call = async (team: string) =>
      json<Asset>(
        suite.s.api("/archivist/v2/assets", {
          method: "POST",
          token: suite.admin,
          json: { attributes: { arc_display_type: "call", team, events_batch: "yes" } },
        }),
      );
    const [green, red] = [await call("green"), await call("red")];
    const note = (type: string, assetAttributes?: Record<string, string>) => ({
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { arc_display_type: type, from_batch: "yes" },
      ...(assetAttributes ? { asset_attributes: assetAttributes } : {}),
    });
    const items = [
      { asset_identity: green.identity, event: note("vcon_note") },
      // An event type the policy does not let the reader write.
      { asset_identity: green.identity, event: note("vcon_deleted") },
      // An asset the reader cannot see: 404, as for one that does not exist.
      { asset_identity: red.identity, event: note("vcon_note") },
      // An asset attribute the policy does not let the reader write.
      { asset_identity: green.identity, event: note("vcon_note", { secret: "x" }) },
    ];
    const batch = await suite.s.api("/archivist/v2/assets/-/events:batch", {
      method: "POST",
      token: suite.reader,
      json: { requests: items },
    });
    expect(batch.status, await batch.clone().text()).toBe(200);
    const { responses } = (await batch.json()) as {
      responses: Array<Event & { error?: { status: number; code: number; message: string } }>;
    };
    expect(responses.map((r) => r.error?.status ?? 200)).toEqual([200, 403, 404, 403]);
    expect(responses[0]?.identity.startsWith(`${green.identity}/events/`)).toBe(true);
    // Each refusal is the one its own request gets.
    for (const [i, item] of items.entries()) {
      if (i === 0) continue;
      const alone = await suite.s.api(`/archivist/v2/${item.asset_identity}/events`, {
        method: "POST",
        token: suite.reader,
        json: item.event,
      });
      const body = (await alone.json()) as { code: number; message: string };
      expect(responses[i]?.error, String(i)).toMatchObject({ status: alone.status, ...body });
    }
    const recorded = async (asset: Asset) =>
      (
        await json<{ events: Event[] }>(
          suite.s.api(`/archivist/v2/${asset.identity}/events?event_attributes.from_batch=yes`, {
            token: suite.admin,
          }),
        )
      ).events.map((e) => e.event_attributes.arc_display_type);
    expect(await recorded(green)).toEqual(["vcon_note"]);
    expect(await recorded(red)).toEqual([]);
  });
});
