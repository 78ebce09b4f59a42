import { describe, expect, it } from "vitest";
import { until } from "../../helpers/poll.js";
import { grantBlueCreated, type Rec, teamAndPublicRecords } from "../../helpers/receipt-records.js";
import { adminAndReader, forSuite } from "../../helpers/service.js";

// POST /archivist/v1/receipts:batch answers each record as GET /archivist/v1/receipts/{record}
// would: the same receipt bytes, the same refusals (401 without a token, 404 with one), so a
// batch reveals nothing the single routes would not.
const suite = forSuite(() => adminAndReader());

type Item = { record: string; status: number; receipt?: string };

const batch = (json: unknown, token?: string) =>
  suite.s.api("/archivist/v1/receipts:batch", {
    method: "POST",
    json,
    ...(token === undefined ? {} : { token }),
  });

async function items(records: string[], profile: string, token?: string): Promise<Item[]> {
  const res = await batch({ records, profile }, token);
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { receipts: Item[] }).receipts;
}

/** The single route's receipt of a record, once sealed (as base64), by the administrator. */
async function single(record: string, profile: string): Promise<string> {
  const path = `/archivist/v1/receipts/${record}?profile=${profile}`;
  return until(async () => {
    await suite.s.service.workers.flush();
    const res = await suite.s.api(path, { token: suite.admin });
    return res.status === 200 ? Buffer.from(await res.arrayBuffer()).toString("base64") : undefined;
  }, 30_000);
}

describe("POST /archivist/v1/receipts:batch", () => {
  let call: Rec;
  let note: Rec;
  let pub: Rec;
  it("answers each record's receipt as the single route does, in the order asked, both profiles", async () => {
    ({ call, note, pub } = await teamAndPublicRecords(suite));
    for (const profile of ["mmr", "rfc9162"]) {
      // The newest record first: once it is sealed no later seal changes the others' receipts.
      await single(pub.identity, profile);
      const want = [await single(note.identity, profile), await single(call.identity, profile)];
      const got = await items([note.identity, call.identity], profile, suite.admin);
      expect(got).toEqual([
        { record: note.identity, status: 200, receipt: want[0] },
        { record: call.identity, status: 200, receipt: want[1] },
      ]);
      // A record by its id alone, as GET /archivist/v1/receipts/events/{uuid} names it.
      const byId = `events/${call.identity.split("/").at(-1)}`;
      expect(await items([byId], profile, suite.admin)).toEqual([
        { record: byId, status: 200, receipt: want[1] },
      ]);
    }
    // The profile defaults to mmr, as ?profile= does.
    const res = await batch({ records: [call.identity] }, suite.admin);
    expect(((await res.json()) as { receipts: Item[] }).receipts[0]?.receipt).toBe(
      await single(call.identity, "mmr"),
    );
  });

  it("refuses, item by item, what the caller may not read: 404 with a token, 401 without, public records to all", async () => {
    const wrongAsset = `${pub.identity.split("/events/")[0]}/events/${call.identity.split("/").at(-1)}`;
    const missing = `${call.identity.split("/events/")[0]}/events/00000000-0000-4000-8000-000000000000`;
    for (const profile of ["mmr", "rfc9162"]) {
      expect(await items([call.identity, pub.identity, wrongAsset, missing], profile, suite.reader)).toEqual([
        { record: call.identity, status: 404 },
        { record: pub.identity, status: 200, receipt: await single(pub.identity, profile) },
        { record: wrongAsset, status: 404 },
        { record: missing, status: 404 },
      ]);
      expect(await items([call.identity, pub.identity, wrongAsset], profile)).toEqual([
        { record: call.identity, status: 401 },
        { record: pub.identity, status: 200, receipt: await single(pub.identity, profile) },
        { record: wrongAsset, status: 401 },
      ]);
    }
  });

  it("follows the caller's access policy: the event types it grants, nothing more", async () => {
    await grantBlueCreated(suite);
    await until(async () =>
      (await items([call.identity], "mmr", suite.reader))[0]?.status === 200 ? true : undefined,
    );
    const got = await items([call.identity, note.identity], "mmr", suite.reader);
    expect(got.map((x) => x.status)).toEqual([200, 404]);
  });

  it("refuses a malformed batch with 400, naming the field", async () => {
    const uuid = "00000000-0000-4000-8000-000000000000";
    const bad: unknown[] = [
      {},
      { records: [] },
      { records: "assets" },
      { records: [`assets/${uuid}`] },
      { records: [`assets/${uuid}/events/${uuid}/x`] },
      { records: [`../events/${uuid}`] },
      { records: [`events/${uuid}`], profile: "sha1" },
      { records: Array.from({ length: 101 }, () => `events/${uuid}`) },
    ];
    for (const json of bad) {
      const res = await batch(json, suite.admin);
      expect(res.status, JSON.stringify(json).slice(0, 80)).toBe(400);
      expect(((await res.json()) as { message?: string }).message).toMatch(/records|profile|body/);
    }
    const text = await suite.s.api("/archivist/v1/receipts:batch", {
      method: "POST",
      token: suite.admin,
      body: "not json",
      headers: { "content-type": "application/json" },
    });
    expect(text.status).toBe(400);
  });
});
