import { describe, expect, it } from "vitest";
import { committedRecord } from "../../helpers/poll.js";
import { forSuite, twoTenancies } from "../../helpers/service.js";

const suite = forSuite(() => twoTenancies());

type Asset = {
  identity: string;
  attributes: Record<string, unknown>;
  tracked: string;
  public: boolean;
  confirmation_status: string;
  proof_mechanism: string;
};
type Event = {
  identity: string;
  event_attributes: Record<string, unknown>;
  asset_attributes: Record<string, unknown>;
  operation: string;
  confirmation_status: string;
  principal_accepted: { subject: string };
  principal_declared: { subject: string };
  timestamp_accepted: string;
};

async function createAsset(token: string, body: Record<string, unknown>): Promise<Asset> {
  const res = await suite.s.api("/archivist/v2/assets", { method: "POST", token, json: body });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Asset;
}

async function postEvent(token: string, asset: Asset, body: Record<string, unknown>): Promise<Response> {
  return suite.s.api(`/archivist/v2/${asset.identity}/events`, { method: "POST", token, json: body });
}

describe("assets and events", () => {
  it("creates an asset with a NewAsset event written by the service", async () => {
    const asset = await createAsset(suite.ta, {
      attributes: { arc_display_name: "Call 1", arc_display_type: "call", team: "red" },
      behaviours: ["RecordEvidence"],
    });
    expect(asset.identity).toMatch(/^assets\/[0-9a-f-]{36}$/);
    expect(asset.proof_mechanism).toBe("MERKLE_LOG");
    expect(asset.tracked).toBe("TRACKED");
    const events = (await (
      await suite.s.api(`/archivist/v2/${asset.identity}/events`, { token: suite.ta })
    ).json()) as {
      events: Event[];
    };
    expect(events.events).toHaveLength(1);
    expect(events.events[0]?.operation).toBe("NewAsset");
    expect(events.events[0]?.asset_attributes).toMatchObject({ team: "red" });
    expect(events.events[0]?.principal_accepted.subject).toBe("assets");
  });

  it("names assets and events by time-ordered identities (UUID version 7) whose time is the event's acceptance", async () => {
    const v7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const millis = (uuid: string) => Number.parseInt(uuid.replace(/-/g, "").slice(0, 12), 16);
    const before = Date.now();
    const asset = await createAsset(suite.ta, {
      attributes: { arc_display_type: "call" },
      behaviours: ["RecordEvidence"],
    });
    const res = await postEvent(suite.ta, asset, {
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { k: "v" },
    });
    expect(res.status).toBe(200);
    const event = (await res.json()) as Event;
    const assetUuid = asset.identity.split("/")[1] ?? "";
    const eventUuid = event.identity.split("/")[3] ?? "";
    expect(assetUuid).toMatch(v7);
    expect(eventUuid).toMatch(v7);
    expect(millis(assetUuid)).toBeGreaterThanOrEqual(before);
    expect(millis(eventUuid)).toBe(Date.parse(event.timestamp_accepted));
  });

  it("writes concurrent creations and events in shared groups, refusing a bad one alone", async () => {
    const existing = await createAsset(suite.ta, {
      attributes: { arc_display_type: "call", burst: "target" },
    });
    const bodies = Array.from({ length: 40 }, (_, i) => ({
      attributes: { arc_display_type: "call", burst: "created", n: String(i) },
    }));
    const [created, events, refused] = await Promise.all([
      Promise.all(
        bodies.map((b) => suite.s.api("/archivist/v2/assets", { method: "POST", token: suite.ta, json: b })),
      ),
      Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          postEvent(suite.ta, existing, {
            operation: "Record",
            behaviour: "RecordEvidence",
            event_attributes: { arc_display_type: "note", n: String(i) },
            asset_attributes: { last: String(i) },
          }),
        ),
      ),
      suite.s.api("/archivist/v2/assets", {
        method: "POST",
        token: suite.ta,
        json: {
          attributes: { arc_home_location_identity: "locations/00000000-0000-4000-8000-000000000000" },
        },
      }),
    ]);
    expect(created.map((r) => r.status)).toEqual(bodies.map(() => 200));
    expect(events.map((r) => r.status)).toEqual(events.map(() => 200));
    expect(refused.status).toBe(400);
    const assets = (await Promise.all(created.map((r) => r.json()))) as Asset[];
    expect(new Set(assets.map((a) => a.identity)).size).toBe(40);
    for (const [i, a] of assets.entries()) {
      const read = (await (
        await suite.s.api(`/archivist/v2/${a.identity}`, { token: suite.ta })
      ).json()) as Asset;
      expect(read.attributes).toMatchObject({ burst: "created", n: String(i) });
      const list = (await (
        await suite.s.api(`/archivist/v2/${a.identity}/events`, { token: suite.ta })
      ).json()) as {
        events: Event[];
      };
      expect(list.events.map((e) => e.operation)).toEqual(["NewAsset"]);
      expect(list.events[0]?.asset_attributes).toMatchObject({ n: String(i) });
    }
    const listed = await suite.s.api("/archivist/v2/assets?attributes.burst=created&page_size=100", {
      token: suite.ta,
    });
    expect(((await listed.json()) as { assets: Asset[] }).assets).toHaveLength(40);
    const target = (await (
      await suite.s.api(`/archivist/v2/${existing.identity}`, { token: suite.ta })
    ).json()) as Asset;
    expect(target.attributes.last).toMatch(/^\d+$/);
  });

  it("refuses events for an asset that does not exist with 404, in groups with good ones, storing none", async () => {
    // The writer's own check, under the lock it takes on each asset: no foreign key repeats it.
    const existing = await createAsset(suite.ta, { attributes: { arc_display_type: "call" } });
    const missing = { identity: "assets/00000000-0000-4000-8000-00000000dead" } as Asset;
    const body = (target: string) => ({
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { arc_display_type: "note", orphan_probe: target },
    });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 3 === 0
          ? postEvent(suite.ta, missing, body("missing"))
          : postEvent(suite.ta, existing, body("existing")),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(answers.map((_, i) => (i % 3 === 0 ? 404 : 200)));
    const listed = await suite.s.api("/archivist/v2/assets/-/events?event_attributes.orphan_probe=missing", {
      token: suite.ta,
    });
    expect(((await listed.json()) as { events: Event[] }).events).toEqual([]);
    const good = await suite.s.api("/archivist/v2/assets/-/events?event_attributes.orphan_probe=existing", {
      token: suite.ta,
    });
    expect(((await good.json()) as { events: Event[] }).events).toHaveLength(8);
  });

  it("creates an asset with its first Record events in one transaction (assets:withEvents)", async () => {
    const record = (n: string, aa: Record<string, string> = {}) => ({
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { arc_display_type: "note", first: n },
      asset_attributes: aa,
    });
    const res = await suite.s.api("/archivist/v2/assets:withEvents", {
      method: "POST",
      token: suite.ta,
      json: {
        attributes: { arc_display_type: "call", bundle: "one" },
        events: [record("a"), record("b", { stage: "2" })],
      },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const made = (await res.json()) as { asset: Asset; events: Event[] };
    expect(made.asset.attributes).toEqual({ arc_display_type: "call", bundle: "one", stage: "2" });
    expect(made.events.map((e) => e.event_attributes.first)).toEqual(["a", "b"]);
    expect(made.events.every((e) => e.identity.startsWith(`${made.asset.identity}/events/`))).toBe(true);
    const list = (await (
      await suite.s.api(`/archivist/v2/${made.asset.identity}/events?order_by=SIMPLEHASHV1`, {
        token: suite.ta,
      })
    ).json()) as {
      events: Event[];
    };
    expect(list.events.map((e) => e.operation)).toEqual(["NewAsset", "Record", "Record"]);
    // The NewAsset event holds the asset as created; the second Record changed it.
    expect(list.events[0]?.asset_attributes).toEqual({ arc_display_type: "call", bundle: "one" });
    const read = (await (
      await suite.s.api(`/archivist/v2/${made.asset.identity}`, { token: suite.ta })
    ).json()) as Asset;
    expect(read.attributes).toMatchObject({ stage: "2" });
    // The encoded form of the verb reaches the same route.
    const encoded = await suite.s.api("/archivist/v2/assets%3AwithEvents", {
      method: "POST",
      token: suite.ta,
      json: { attributes: { bundle: "two" }, events: [record("c")] },
    });
    expect(encoded.status).toBe(200);
  });

  it("refuses a creation with events as a whole: nothing is stored when one event is bad", async () => {
    const attempt = async (events: unknown[]) =>
      suite.s.api("/archivist/v2/assets:withEvents", {
        method: "POST",
        token: suite.ta,
        json: { attributes: { bundle: "refused" }, events },
      });
    const good = { operation: "Record", behaviour: "RecordEvidence", event_attributes: { ok: "1" } };
    const answers = [
      await attempt([
        good,
        { operation: "Record", behaviour: "RecordEvidence", event_attributes: { bad: true } },
      ]),
      await attempt([good, { operation: "StopTracking", behaviour: "Builtin" }]),
      await attempt([]),
      await attempt(Array.from({ length: 17 }, () => good)),
      await attempt([{ operation: "Record" }]),
    ];
    for (const r of answers) {
      expect(r.status).toBe(400);
      expect(((await r.json()) as { code: number }).code).toBe(3);
    }
    const listed = await suite.s.api("/archivist/v2/assets?attributes.bundle=refused", { token: suite.ta });
    expect(((await listed.json()) as { assets: Asset[] }).assets).toEqual([]);
  });

  it("creates many assets with their first events in one request, each answered as its own assets:withEvents (assets:batchWithEvents)", async () => {
    const record = (n: string) => ({
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { arc_display_type: "note", first: n },
    });
    const res = await suite.s.api("/archivist/v2/assets:batchWithEvents", {
      method: "POST",
      token: suite.ta,
      json: {
        requests: [
          { attributes: { arc_display_type: "call", batch: "b1" }, events: [record("x")] },
          // Refused alone: nothing of it is stored, and its neighbours are.
          { attributes: { arc_display_type: "call", batch: "b2" }, events: [] },
          {
            attributes: { arc_display_type: "call", batch: "b3" },
            events: [record("y"), { ...record("z"), asset_attributes: { stage: "3" } }],
          },
          {
            attributes: { arc_display_type: "call", batch: "b4" },
            events: [{ operation: "StopTracking", behaviour: "Builtin" }],
          },
        ],
      },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    type Item =
      | { asset: Asset; events: Event[] }
      | { error: { status: number; code: number; message: string } };
    const { responses } = (await res.json()) as { responses: Item[] };
    expect(responses).toHaveLength(4);
    const [one, two, three, four] = responses as [Item, Item, Item, Item];
    if (!("asset" in one) || !("asset" in three)) throw new Error("items 1 and 3 must be created");
    expect(one.asset.attributes).toEqual({ arc_display_type: "call", batch: "b1" });
    expect(one.events.map((e) => e.event_attributes.first)).toEqual(["x"]);
    expect(three.asset.attributes).toEqual({ arc_display_type: "call", batch: "b3", stage: "3" });
    expect(three.events.map((e) => e.event_attributes.first)).toEqual(["y", "z"]);
    expect(three.events.every((e) => e.identity.startsWith(`${three.asset.identity}/events/`))).toBe(true);
    for (const refused of [two, four]) {
      expect("error" in refused && refused.error).toMatchObject({ status: 400, code: 3 });
    }
    for (const [batch, n] of [
      ["b1", 1],
      ["b2", 0],
      ["b3", 1],
      ["b4", 0],
    ] as const) {
      const listed = await suite.s.api(`/archivist/v2/assets?attributes.batch=${batch}`, { token: suite.ta });
      expect(((await listed.json()) as { assets: Asset[] }).assets, batch).toHaveLength(n);
    }
    const list = (await (
      await suite.s.api(`/archivist/v2/${three.asset.identity}/events?order_by=SIMPLEHASHV1`, {
        token: suite.ta,
      })
    ).json()) as { events: Event[] };
    expect(list.events.map((e) => e.operation)).toEqual(["NewAsset", "Record", "Record"]);
    // The batch as a whole is bounded: no items, or more than 100, is a bad request.
    const good = { attributes: { batch: "bounds" }, events: [record("w")] };
    for (const requests of [[], Array.from({ length: 101 }, () => good)]) {
      const r = await suite.s.api("/archivist/v2/assets:batchWithEvents", {
        method: "POST",
        token: suite.ta,
        json: { requests },
      });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { code: number }).code).toBe(3);
    }
    const unauthenticated = await suite.s.api("/archivist/v2/assets:batchWithEvents", {
      method: "POST",
      json: { requests: [good] },
    });
    expect(unauthenticated.status).toBe(401);
    const bounds = await suite.s.api("/archivist/v2/assets?attributes.batch=bounds", { token: suite.ta });
    expect(((await bounds.json()) as { assets: Asset[] }).assets).toEqual([]);
  });

  it("answers only the identities it made under Prefer: return=minimal (assets:withEvents, assets:batchWithEvents, assets/-/events:batch)", async () => {
    const record = (n: string) => ({
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { arc_display_type: "note", minimal: n },
    });
    const minimal = { prefer: 'respond-async, return="minimal"; x=1' };
    const single = await suite.s.api("/archivist/v2/assets:withEvents", {
      method: "POST",
      token: suite.ta,
      headers: minimal,
      json: { attributes: { arc_display_type: "call", minimal: "m0" }, events: [record("a")] },
    });
    expect(single.status, await single.clone().text()).toBe(200);
    expect(single.headers.get("preference-applied")).toBe("return=minimal");
    const made = (await single.json()) as {
      asset: { identity: string };
      events: Array<{ identity: string }>;
    };
    expect(Object.keys(made.asset)).toEqual(["identity"]);
    expect(made.events.map((e) => Object.keys(e))).toEqual([["identity"]]);
    // What it names is stored whole, and reads back as any record does.
    const asset = (await (
      await suite.s.api(`/archivist/v2/${made.asset.identity}`, { token: suite.ta })
    ).json()) as Asset;
    expect(asset.attributes).toEqual({ arc_display_type: "call", minimal: "m0" });
    const event = (await (
      await suite.s.api(`/archivist/v2/${made.events[0]?.identity}`, { token: suite.ta })
    ).json()) as Event;
    expect(event.event_attributes.minimal).toBe("a");

    const batch = await suite.s.api("/archivist/v2/assets:batchWithEvents", {
      method: "POST",
      token: suite.ta,
      headers: { prefer: "return=minimal" },
      json: {
        requests: [
          { attributes: { arc_display_type: "call", minimal: "m1" }, events: [record("b")] },
          { attributes: { arc_display_type: "call", minimal: "m2" }, events: [] },
        ],
      },
    });
    expect(batch.headers.get("preference-applied")).toBe("return=minimal");
    const answered = (await batch.json()) as { responses: unknown[] };
    const [first, refused] = answered.responses as [
      { asset: { identity: string }; events: Array<{ identity: string }> },
      { error: { status: number; code: number } },
    ];
    expect(first).toEqual({
      asset: { identity: first.asset.identity },
      events: [{ identity: first.events[0]?.identity }],
    });
    expect(first.events[0]?.identity.startsWith(`${first.asset.identity}/events/`)).toBe(true);
    // An item's failure is answered as it is without the preference.
    expect(refused.error).toMatchObject({ status: 400, code: 3 });

    const events = await suite.s.api("/archivist/v2/assets/-/events:batch", {
      method: "POST",
      token: suite.ta,
      headers: { prefer: "return=minimal" },
      json: {
        requests: [
          { asset_identity: first.asset.identity, event: record("c") },
          { asset_identity: "assets/not-a-uuid", event: record("d") },
        ],
      },
    });
    expect(events.headers.get("preference-applied")).toBe("return=minimal");
    const posted = (await events.json()) as { responses: Array<Record<string, unknown>> };
    expect(Object.keys(posted.responses[0] ?? {})).toEqual(["identity"]);
    expect(String(posted.responses[0]?.identity).startsWith(`${first.asset.identity}/events/`)).toBe(true);
    expect(posted.responses[1]).toMatchObject({ error: { status: 400, code: 3 } });

    // A request refused as a whole (its body, before any item) is answered as any error is.
    const refusedWhole = await suite.s.api("/archivist/v2/assets/-/events:batch", {
      method: "POST",
      token: suite.ta,
      headers: { prefer: "return=minimal" },
      json: { requests: [] },
    });
    expect(refusedWhole.status).toBe(400);
    expect(refusedWhole.headers.get("preference-applied")).toBeNull();
    expect(((await refusedWhole.json()) as { code: number }).code).toBe(3);

    // Without the preference (or with another one) the records are answered, as before.
    const full = await suite.s.api("/archivist/v2/assets/-/events:batch", {
      method: "POST",
      token: suite.ta,
      headers: { prefer: "return=representation" },
      json: { requests: [{ asset_identity: first.asset.identity, event: record("e") }] },
    });
    expect(full.headers.get("preference-applied")).toBeNull();
    const fullItem = ((await full.json()) as { responses: Event[] }).responses[0];
    expect(fullItem?.event_attributes.minimal).toBe("e");
    expect(fullItem?.identity.startsWith(`${first.asset.identity}/events/`)).toBe(true);
  });

  it("records many events, each on the asset it names, in one request, each answered as its own POST …/events (assets/-/events:batch)", async () => {
    const x = await createAsset(suite.ta, { attributes: { arc_display_type: "call", stage: "new" } });
    const y = await createAsset(suite.ta, { attributes: { arc_display_type: "call" } });
    const theirs = await createAsset(suite.tb, { attributes: { arc_display_type: "call" } });
    const note = (n: string) => ({
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { arc_display_type: "note", batched: n },
    });
    const batch = (token: string | undefined, json: unknown) =>
      suite.s.api("/archivist/v2/assets/-/events:batch", {
        method: "POST",
        ...(token ? { token } : {}),
        json,
      });
    const bogus = { operation: "Bogus", behaviour: "RecordEvidence" };
    const unknown = `assets/${crypto.randomUUID()}`;
    const res = await batch(suite.ta, {
      requests: [
        { asset_identity: x.identity, event: { ...note("1"), asset_attributes: { stage: "noted" } } },
        { asset_identity: theirs.identity, event: note("2") },
        { asset_identity: y.identity, event: bogus },
        { asset_identity: "assets/not-a-uuid", event: note("3") },
        { asset_identity: x.identity.slice("assets/".length), event: note("4") },
        { asset_identity: unknown, event: note("5") },
        { asset_identity: y.identity, event: note("6") },
      ],
    });
    expect(res.status, await res.clone().text()).toBe(200);
    type Failure = { error: { status: number; code: number; message: string; details: unknown[] } };
    const { responses } = (await res.json()) as { responses: Array<Event | Failure> };
    expect(responses).toHaveLength(7);
    const [first, other, bad, malformed, bare, missing, last] = responses as [
      Event,
      Failure,
      Failure,
      Failure,
      Failure,
      Failure,
      Event,
    ];
    // In request order, each on its own asset.
    expect(first.identity.startsWith(`${x.identity}/events/`)).toBe(true);
    expect(first.event_attributes.batched).toBe("1");
    expect(last.identity.startsWith(`${y.identity}/events/`)).toBe(true);
    expect(last.event_attributes.batched).toBe("6");
    // A refused item answers what its own request answers: another tenancy's asset and an unknown
    // one are 404 alike, a bad event 400.
    const alone = async (asset: string, event: unknown) => {
      const r = await suite.s.api(`/archivist/v2/${asset}/events`, {
        method: "POST",
        token: suite.ta,
        json: event,
      });
      const body = (await r.json()) as { code: number; message: string; details: unknown[] };
      return { error: { status: r.status, ...body } };
    };
    expect(other).toEqual(await alone(theirs.identity, note("2")));
    expect(missing).toEqual(await alone(unknown, note("5")));
    expect(other.error).toMatchObject({ status: 404, code: 5 });
    expect(bad).toEqual(await alone(y.identity, bogus));
    expect(bad.error).toMatchObject({ status: 400, code: 3 });
    // An identity that is not `assets/<uuid>` is that item's bad request, not the batch's.
    for (const refused of [malformed, bare]) {
      expect(refused.error).toMatchObject({
        status: 400,
        code: 3,
        message: expect.stringMatching(/asset_identity/),
      });
    }
    // The same record a single POST gives, stored, committed and read back as answered.
    const single = (await (await postEvent(suite.ta, y, note("7"))).json()) as Event &
      Record<string, unknown>;
    const batched = last as Event & Record<string, unknown>;
    const volatile = ({
      identity,
      timestamp_accepted,
      timestamp_declared,
      event_attributes,
      ...rest
    }: Record<string, unknown>) => rest;
    expect(Object.keys(batched).sort()).toEqual(Object.keys(single).sort());
    expect(volatile(batched)).toEqual(volatile(single));
    for (const made of [first, last]) {
      const read = await committedRecord<Event>(suite.s, suite.ta, `/archivist/v2/${made.identity}`);
      expect(read).toMatchObject({
        identity: made.identity,
        event_attributes: made.event_attributes,
        asset_attributes: made.asset_attributes,
        timestamp_accepted: made.timestamp_accepted,
        principal_accepted: made.principal_accepted,
      });
      // Committed, and by now perhaps sealed and anchored as well.
      expect(["COMMITTED", "CONFIRMED", "UNEQUIVOCAL"]).toContain(read.confirmation_status);
    }
    const now = (await (
      await suite.s.api(`/archivist/v2/${x.identity}`, { token: suite.ta })
    ).json()) as Asset;
    expect(now.attributes.stage).toBe("noted");
    const stored = async (asset: Asset) => {
      const list = await suite.s.api(
        `/archivist/v2/${asset.identity}/events?event_attributes.arc_display_type=note`,
        {
          token: asset === theirs ? suite.tb : suite.ta,
        },
      );
      return ((await list.json()) as { events: Event[] }).events
        .map((e) => e.event_attributes.batched)
        .sort();
    };
    expect(await stored(x)).toEqual(["1"]);
    expect(await stored(y)).toEqual(["6", "7"]);
    expect(await stored(theirs)).toEqual([]);
    // Refused whole: no items or more than 100, a body that is not an object, an item whose shape
    // is wrong (an identity that is not text, no event), and no token. Nothing of them is stored.
    const good = { asset_identity: x.identity, event: note("8") };
    for (const body of [
      { requests: [] },
      { requests: Array.from({ length: 101 }, () => good) },
      [good],
      "requests",
      { requests: [good, { asset_identity: 5, event: note("8") }] },
      { requests: [good, { asset_identity: x.identity }] },
      { requests: [good, "item"] },
    ]) {
      const r = await batch(suite.ta, body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(((await r.json()) as { code: number }).code).toBe(3);
    }
    expect((await batch(undefined, { requests: [good] })).status).toBe(401);
    expect(await stored(x)).toEqual(["1"]);
  });

  it("records events whose asset_attributes change the asset, with principals and at_time", async () => {
    const asset = await createAsset(suite.ta, { attributes: { arc_display_type: "call", stage: "new" } });
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const res = await postEvent(suite.ta, asset, {
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { arc_display_type: "transcribed", note: "x" },
      asset_attributes: { stage: "transcribed" },
      principal_declared: { issuer: "idp", subject: "alice" },
    });
    expect(res.status).toBe(200);
    const ev = (await res.json()) as Event;
    expect(ev.confirmation_status).toBe("STORED");
    expect(ev.principal_declared.subject).toBe("alice");
    expect(ev.principal_accepted.subject).toBe(suite.s.a.clientId);
    const now = (await (
      await suite.s.api(`/archivist/v2/${asset.identity}`, { token: suite.ta })
    ).json()) as Asset;
    expect(now.attributes.stage).toBe("transcribed");
    const then = (await (
      await suite.s.api(`/archivist/v2/${asset.identity}?at_time=${encodeURIComponent(before)}`, {
        token: suite.ta,
      })
    ).json()) as Asset;
    expect(then.attributes.stage).toBe("new");
    expect(
      (await suite.s.api(`/archivist/v2/${asset.identity}?at_time=0000-01-01T00:00:00Z`, { token: suite.ta }))
        .status,
    ).toBe(400);
    const one = await suite.s.api(`/archivist/v2/${ev.identity}`, { token: suite.ta });
    expect(one.status).toBe(200);
  });

  it("refuses bad events and misused attributes with 400 naming the problem", async () => {
    const asset = await createAsset(suite.ta, { attributes: { arc_display_type: "call" } });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ operation: "Explode", behaviour: "RecordEvidence" }, "operation"],
      // Names of Object.prototype are unknown operations too (they were 500s).
      [{ operation: "constructor", behaviour: "RecordEvidence" }, "operation"],
      [{ operation: "toString", behaviour: "RecordEvidence" }, "operation"],
      [{ operation: "Record", behaviour: "Builtin" }, "behaviour"],
      [{ operation: "NewAsset", behaviour: "AssetCreator" }, "operation"],
      [
        {
          operation: "Record",
          behaviour: "RecordEvidence",
          event_attributes: { arc_home_location_identity: "nowhere" },
        },
        "arc_home_location_identity",
      ],
      [{ operation: "Record", behaviour: "RecordEvidence", event_attributes: "nope" }, "event_attributes"],
      [
        { operation: "Record", behaviour: "RecordEvidence", timestamp_declared: "yesterday" },
        "timestamp_declared",
      ],
      [
        { operation: "Record", behaviour: "RecordEvidence", timestamp_declared: "0000-06-01T00:00:00Z" },
        "timestamp_declared",
      ],
    ];
    for (const [body, word] of cases) {
      const res = await postEvent(suite.ta, asset, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain(word);
    }
    const bad = await suite.s.api("/archivist/v2/assets", {
      method: "POST",
      token: suite.ta,
      json: { attributes: { jit_x: "1" } },
    });
    expect(bad.status).toBe(400);
  });

  it("keeps a declared time from the year 1 to past 9999 as sent", async () => {
    const asset = await createAsset(suite.ta, { attributes: { arc_display_type: "call" } });
    // JavaScript writes a year past 9999 with a sign (+012000-…), which PostgreSQL would read as
    // a time zone: the group's insert must write it as PostgreSQL reads it.
    for (const when of [
      "0001-01-01T00:00:00.000Z",
      "1999-12-31T23:59:59.123Z",
      "+012000-06-01T12:00:00.000Z",
    ]) {
      const res = await postEvent(suite.ta, asset, {
        operation: "Record",
        behaviour: "RecordEvidence",
        timestamp_declared: when,
        event_attributes: { quote: 'a "quoted" \\ value', nested: { list: ["x", "y"] } },
      });
      expect(res.status, when).toBe(200);
      const ev = (await res.json()) as { identity: string; timestamp_declared: string };
      expect(new Date(ev.timestamp_declared).getTime(), when).toBe(new Date(when).getTime());
      const read = await suite.s.api(`/archivist/v2/${ev.identity}`, { token: suite.ta });
      const back = (await read.json()) as {
        timestamp_declared: string;
        event_attributes: Record<string, unknown>;
      };
      expect(new Date(back.timestamp_declared).getTime(), when).toBe(new Date(when).getTime());
      expect(back.event_attributes).toMatchObject({
        quote: 'a "quoted" \\ value',
        nested: { list: ["x", "y"] },
      });
    }
    // A time past 9999 as a query parameter too: the embedded default's driver wrote it with
    // JavaScript's sign, which PostgreSQL refused.
    const at = encodeURIComponent("+012000-01-01T00:00:00Z");
    const later = await suite.s.api(`/archivist/v2/${asset.identity}?at_time=${at}`, { token: suite.ta });
    expect(later.status, await later.clone().text()).toBe(200);
    expect(((await later.json()) as Asset).identity).toBe(asset.identity);
  });

  it("tracks and untracks: untracked assets are hidden from default lists", async () => {
    const asset = await createAsset(suite.ta, { attributes: { arc_display_type: "tracking-test" } });
    expect(
      (await postEvent(suite.ta, asset, { operation: "StopTracking", behaviour: "Builtin" })).status,
    ).toBe(200);
    const list = async (q: string) =>
      (
        (await (
          await suite.s.api(`/archivist/v2/assets?attributes.arc_display_type=tracking-test${q}`, {
            token: suite.ta,
          })
        ).json()) as { assets: Asset[] }
      ).assets;
    expect(await list("")).toHaveLength(0);
    expect((await list("&tracked=NOT_TRACKED"))[0]?.tracked).toBe("NOT_TRACKED");
    expect(await list("&tracked=ANY")).toHaveLength(1);
    expect(
      (await postEvent(suite.ta, asset, { operation: "StartTracking", behaviour: "Builtin" })).status,
    ).toBe(200);
    expect(await list("")).toHaveLength(1);
    expect((await suite.s.api("/archivist/v2/assets?tracked=SOMETIMES", { token: suite.ta })).status).toBe(
      400,
    );
  });

  it("filters lists by attributes, presence and absence, pages and counts", async () => {
    for (let i = 0; i < 5; i++)
      await createAsset(suite.ta, {
        attributes: { arc_display_type: "pager", idx: String(i), ...(i % 2 ? { odd: "yes" } : {}) },
      });
    const get = async (q: string, headers: Record<string, string> = {}) =>
      suite.s.api(`/archivist/v2/assets?attributes.arc_display_type=pager${q}`, { token: suite.ta, headers });
    const names = async (q: string) =>
      ((await (await get(q)).json()) as { assets: Asset[] }).assets.map((a) => a.attributes.idx);
    expect(await names("&attributes.odd=*")).toEqual(["3", "1"]);
    expect((await names("&attributes.odd!=*")).sort()).toEqual(["0", "2", "4"]);
    expect((await names("&attributes.idx=1&attributes.idx=4")).sort()).toEqual(["1", "4"]);
    await createAsset(suite.ta, { attributes: { arc_display_type: "pager", idx: "n", calls: 7 } });
    expect(await names("&attributes.calls=7")).toEqual(["n"]);
    expect(await names("&attributes.calls=07")).toEqual([]);
    expect(await names("&attributes.calls=*")).toEqual(["n"]);
    const counted = await get("&page_size=1", { "x-request-total-count": "true" });
    expect(counted.headers.get("x-total-count")).toBe("6");
    let token = ((await counted.json()) as { next_page_token: string }).next_page_token;
    const seen: unknown[] = [];
    while (token) {
      const page = (await (
        await suite.s.api(`/archivist/v2/assets?page_token=${encodeURIComponent(token)}`, { token: suite.ta })
      ).json()) as { assets: Asset[]; next_page_token: string };
      seen.push(...page.assets.map((a) => a.attributes.idx));
      token = page.next_page_token;
    }
    expect(seen).toEqual(["4", "3", "2", "1", "0"]);
  });

  it("keeps the attribute index free of a pending list, so a look-up by attribute stays an index probe", async () => {
    const rows = await suite.s.service.ctx.db.query<{ reloptions: string[] | null }>(
      "select reloptions from pg_class where relname = 'assets_attributes'",
    );
    expect(rows[0]?.reloptions).toContain("fastupdate=off");
  });

  it("answers a value filter the same whether it matches few records or many, in every tenancy", async () => {
    const rare = (token: string, i: number) =>
      createAsset(token, { attributes: { arc_display_type: "probe", lookup: "rare", i: String(i) } });
    for (let i = 0; i < 3; i++) await rare(suite.ta, i);
    for (let i = 0; i < 2; i++) await rare(suite.tb, i);
    const page = async (q: string, token = suite.ta) => {
      const res = await suite.s.api(`/archivist/v2/assets?${q}`, {
        token,
        headers: { "x-request-total-count": "true" },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { assets: Asset[]; next_page_token?: string };
      return { ...body, total: res.headers.get("x-total-count") };
    };
    const first = await page("attributes.lookup=rare&page_size=2");
    expect(first.assets.map((a) => a.attributes.i)).toEqual(["2", "1"]);
    expect(first.total).toBe("3");
    const second = await page(`page_token=${encodeURIComponent(first.next_page_token ?? "")}`);
    expect(second.assets.map((a) => a.attributes.i)).toEqual(["0"]);
    expect((await page("attributes.lookup=rare", suite.tb)).assets.map((a) => a.attributes.i)).toEqual([
      "1",
      "0",
    ]);
    // A value nothing holds: answered from the value index alone, with the same total header.
    const none = await page("attributes.lookup=none");
    expect(none.assets).toEqual([]);
    expect(none.total).toBe("0");
    expect(none.next_page_token ?? "").toBe("");
    const noEvents = await suite.s.api("/archivist/v2/assets/-/events?asset_attributes.lookup=none", {
      token: suite.ta,
      headers: { "x-request-total-count": "true" },
    });
    expect(noEvents.status).toBe(200);
    expect(noEvents.headers.get("x-total-count")).toBe("0");
    expect(((await noEvents.json()) as { events: unknown[] }).events).toEqual([]);
    const events = (await (
      await suite.s.api("/archivist/v2/assets/-/events?asset_attributes.lookup=rare", { token: suite.tb })
    ).json()) as { events: Event[] };
    expect(events.events.map((e) => e.asset_attributes.i)).toEqual(["1", "0"]);
    // Past the few-matches cap (500) the list is not pinned and must answer the same way.
    for (let c = 0; c < 6; c++)
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          createAsset(suite.ta, {
            attributes: { arc_display_type: "probe", lookup: "common", i: String(c * 100 + i) },
          }),
        ),
      );
    const common = await page("attributes.lookup=common&attributes.arc_display_type=probe&page_size=3");
    expect(common.total).toBe("600");
    expect(common.assets).toHaveLength(3);
    const next = await page(`page_token=${encodeURIComponent(common.next_page_token ?? "")}`);
    expect(next.assets).toHaveLength(3);
    const seen = new Set([...common.assets, ...next.assets].map((a) => a.identity));
    expect(seen.size).toBe(6);
  });

  it("filters events by event attributes across all assets, and by time and principal", async () => {
    const asset = await createAsset(suite.ta, { attributes: { arc_display_type: "evfilter" } });
    await postEvent(suite.ta, asset, {
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { arc_display_type: "vcon_created", k: "v1" },
      principal_declared: { issuer: "iss-x", subject: "sub-y" },
    });
    await postEvent(suite.ta, asset, {
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { arc_display_type: "vcon_enhanced", k: "v2" },
    });
    const get = async (q: string) =>
      (
        (await (await suite.s.api(`/archivist/v2/assets/-/events?${q}`, { token: suite.ta })).json()) as {
          events: Event[];
        }
      ).events;
    expect((await get("event_attributes.k=v1")).map((e) => e.event_attributes.arc_display_type)).toEqual([
      "vcon_created",
    ]);
    expect(await get("event_attributes.k=v1&principal_declared.subject=sub-y")).toHaveLength(1);
    expect(await get("event_attributes.k=v1&principal_declared.subject=nobody")).toHaveLength(0);
    expect(await get("event_attributes.k=*&timestamp_accepted_since=2999-01-01T00:00:00Z")).toHaveLength(0);
    expect(
      (
        await suite.s.api("/archivist/v2/assets/-/events?timestamp_accepted_since=garbage", {
          token: suite.ta,
        })
      ).status,
    ).toBe(400);
    // A time before the year 1 parses, but no database column holds it (it was a 500).
    expect(
      (
        await suite.s.api("/archivist/v2/assets/-/events?timestamp_accepted_since=0000-01-01T00:00:00Z", {
          token: suite.ta,
        })
      ).status,
    ).toBe(400);
    expect(
      (await suite.s.api("/archivist/v2/assets/-/events?minimum_trust=ROCKSOLID", { token: suite.ta }))
        .status,
    ).toBe(400);
  });

  it("lists events across assets by a key given several values: any of them, in the caller's tenancy only", async () => {
    const marks = ["rep-a", "rep-b", "rep-c"];
    const asset = await createAsset(suite.ta, { attributes: { arc_display_type: "repeated" } });
    for (const mark of marks)
      expect(
        (
          await postEvent(suite.ta, asset, {
            operation: "Record",
            behaviour: "RecordEvidence",
            event_attributes: { mark },
          })
        ).status,
      ).toBe(200);
    const other = await createAsset(suite.tb, { attributes: { arc_display_type: "repeated" } });
    await postEvent(suite.tb, other, {
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { mark: "rep-a" },
    });
    const marksOf = async (values: string[], token = suite.ta) => {
      const q = new URLSearchParams(values.map((v) => ["event_attributes.mark", v]));
      const res = await suite.s.api(`/archivist/v2/assets/-/events?${q}`, { token });
      expect(res.status).toBe(200);
      return ((await res.json()) as { events: Event[] }).events.map((e) => e.event_attributes.mark).sort();
    };
    // The union of what each value finds alone, and nothing of the other tenancy's.
    expect(await marksOf(["rep-a", "rep-c", "rep-z"])).toEqual(["rep-a", "rep-c"]);
    expect([...(await marksOf(["rep-a"])), ...(await marksOf(["rep-c"]))].sort()).toEqual(["rep-a", "rep-c"]);
    expect(await marksOf(["rep-a", "rep-b"], suite.tb)).toEqual(["rep-a"]);
    expect(await marksOf(["rep-y", "rep-z"])).toEqual([]);
    // Every search reads the index's pending list: it is kept short.
    const rows = await suite.s.service.ctx.db.query<{ reloptions: string[] | null }>(
      "select reloptions from pg_class where relname = 'asset_events_attrs'",
    );
    expect(rows[0]?.reloptions).toContain("gin_pending_list_limit=1024");
  });

  it("keeps tenancies apart: 404 for another's asset, nothing in its lists or counts", async () => {
    const asset = await createAsset(suite.ta, { attributes: { arc_display_type: "secret-a" } });
    expect((await suite.s.api(`/archivist/v2/${asset.identity}`, { token: suite.tb })).status).toBe(404);
    expect((await suite.s.api(`/archivist/v2/${asset.identity}/events`, { token: suite.tb })).status).toBe(
      404,
    );
    expect(
      (await postEvent(suite.tb, asset, { operation: "Record", behaviour: "RecordEvidence" })).status,
    ).toBe(404);
    const res = await suite.s.api("/archivist/v2/assets?attributes.arc_display_type=secret-a", {
      token: suite.tb,
      headers: { "x-request-total-count": "true" },
    });
    expect(res.headers.get("x-total-count")).toBe("0");
    expect(((await res.json()) as { assets: unknown[] }).assets).toEqual([]);
  });

  it("serves public assets without a token and refuses public writes", async () => {
    const pub = await createAsset(suite.ta, {
      attributes: {
        arc_display_type: "doc",
        arc_profile: "Document",
        document_hash_value: "ab".repeat(32),
        document_version: "1",
        document_status: "Published",
      },
      public: true,
    });
    const priv = await createAsset(suite.ta, { attributes: { arc_display_type: "doc" } });
    const uuid = pub.identity.split("/")[1];
    const url = (await (
      await suite.s.api(`/archivist/v2/${pub.identity}:publicurl`, { token: suite.ta })
    ).json()) as {
      publicurl: string;
    };
    expect(url.publicurl).toBe(`${suite.s.url}/archivist/v2/publicassets/${uuid}`);
    expect((await suite.s.api(`/archivist/v2/${priv.identity}:publicurl`, { token: suite.ta })).status).toBe(
      400,
    );
    const read = await fetch(url.publicurl);
    expect(read.status).toBe(200);
    expect(((await read.json()) as Asset).identity).toBe(`publicassets/${uuid}`);
    expect((await suite.s.api(`/archivist/publicassets/${uuid}`)).status).toBe(200);
    expect((await suite.s.api(`/archivist/v2/publicassets/${priv.identity.split("/")[1]}`)).status).toBe(404);
    const evs = (await (await suite.s.api(`/archivist/v2/publicassets/${uuid}/events`)).json()) as {
      events: Event[];
    };
    expect(evs.events[0]?.identity).toMatch(/^publicassets\//);
    expect(
      (await suite.s.api(`/archivist/v2/publicassets/${uuid}/events`, { method: "POST", json: {} })).status,
    ).toBe(404);
    const notDoc = await suite.s.api("/archivist/v2/assets", {
      method: "POST",
      token: suite.ta,
      json: { attributes: { arc_profile: "Document" } },
    });
    expect(notDoc.status).toBe(400);
  });
});

describe("attribute values the ledger can hash", () => {
  it("refuses booleans, fractions and null in lists with 400 naming the attribute; stores null values as sent", async () => {
    for (const bad of [{ flag: true }, { n: 1.5 }, { gaps: ["a", null] }, { deep: { x: [false] } }]) {
      const res = await suite.s.api("/archivist/v2/assets", {
        method: "POST",
        token: suite.ta,
        json: { attributes: bad },
      });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain(Object.keys(bad)[0] as string);
    }
    expect(
      (
        await suite.s.api("/archivist/v2/assets", {
          method: "POST",
          token: suite.ta,
          json: { attributes: { n: 3, list: [{ a: "b" }] } },
        })
      ).status,
    ).toBe(200);
    // DataTrails clients send null for a value they do not have (vcon-server's link does for a
    // vCon without updated_at): it is stored and returned as sent.
    const res = await suite.s.api("/archivist/v2/assets", {
      method: "POST",
      token: suite.ta,
      json: { attributes: { arc_display_type: "nulls", gone: null, nested: { x: null } } },
    });
    expect(res.status).toBe(200);
    const created = (await res.json()) as { identity: string };
    const read = (await (
      await suite.s.api(`/archivist/v2/${created.identity}`, { token: suite.ta })
    ).json()) as {
      attributes: Record<string, unknown>;
    };
    expect(read.attributes).toMatchObject({ gone: null, nested: { x: null } });
  });
});
