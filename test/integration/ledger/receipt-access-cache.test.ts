import { describe, expect, it } from "vitest";
import { until } from "../../helpers/poll.js";
import { eventOf, grantBlueCreated, type Rec, teamAndPublicRecords } from "../../helpers/receipt-records.js";
import { adminAndReader, forSuite } from "../../helpers/service.js";

// Receipts answer from what is kept of sealed records (the event's access facts, its log entry,
// the signed receipt). These checks run after another caller has warmed every one of those
// caches: the access rules must hold on the cached path exactly as on the first read.
const suite = forSuite(() => adminAndReader());

/** The receipt routes of one event: by asset and event, by event id; both profiles. */
const routesOf = (e: Rec) => {
  const id = e.identity.split("/").at(-1) as string;
  return [
    `/archivist/v1/receipts/${e.identity}`,
    `/archivist/v1/receipts/${e.identity}?profile=rfc9162`,
    `/archivist/v1/receipts/events/${id}`,
    `/archivist/v1/receipts/events/${id}?profile=rfc9162`,
  ];
};

const status = async (path: string, token?: string) =>
  (await suite.s.api(path, token === undefined ? {} : { token })).status;

/** Waits until the administrator is served every receipt of `e` (sealed), which warms the caches. */
async function warmed(e: Rec): Promise<void> {
  for (const path of routesOf(e))
    await until(async () => {
      await suite.s.service.workers.flush();
      return (await status(path, suite.admin)) === 200 ? true : undefined;
    }, 30_000);
  for (const path of routesOf(e)) expect(await status(path, suite.admin)).toBe(200);
}

describe("receipts from the caches keep every access rule", () => {
  let blueCall: Rec;
  let blueNote: Rec;
  let pub: Rec;
  it("a caller without a policy never gets a receipt another caller warmed; without a token, 401", async () => {
    const made = await teamAndPublicRecords(suite);
    ({ call: blueCall, note: blueNote, pub } = made);
    const { publicAsset } = made;
    for (const e of [blueCall, blueNote, pub]) await warmed(e);
    for (const e of [blueCall, blueNote]) {
      for (const path of routesOf(e)) {
        expect(await status(path, suite.reader), path).toBe(404);
        expect(await status(path), path).toBe(401);
      }
    }
    // A public record's receipt is everyone's, and a wrong asset in the path is still a 404.
    for (const path of routesOf(pub)) expect(await status(path), path).toBe(200);
    const wrongAsset = `/archivist/v1/receipts/${publicAsset.identity}/events/${blueCall.identity.split("/").at(-1)}`;
    expect(await status(wrongAsset, suite.admin)).toBe(404);
    expect(await status(wrongAsset)).toBe(401);
  });

  it("a policy grants exactly its event types, and a change of the asset's attributes takes the grant away at once", async () => {
    await grantBlueCreated(suite);
    await until(async () =>
      (await status(routesOf(blueCall)[0] as string, suite.reader)) === 200 ? true : undefined,
    );
    for (const path of routesOf(blueCall)) expect(await status(path, suite.reader), path).toBe(200);
    // The policy reads vcon_created events only: the warmed receipt of the note stays refused.
    for (const path of routesOf(blueNote)) expect(await status(path, suite.reader), path).toBe(404);
    // The asset leaves the policy's filter: its attributes are read afresh, so no cached grant outlives it.
    const blue = { identity: blueCall.identity.split("/events/")[0] as string };
    await eventOf(suite, blue, "vcon_moved", { team: "red" });
    for (const path of routesOf(blueCall)) expect(await status(path, suite.reader), path).toBe(404);
    for (const path of routesOf(blueCall)) expect(await status(path, suite.admin), path).toBe(200);
  });
});
