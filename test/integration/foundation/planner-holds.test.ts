import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db, QueryOptions } from "../../../src/store/drivers/db.js";
import { bareTestDb, testEngine } from "../../helpers/databases.js";

const SETTINGS =
  "select current_setting('enable_seqscan') as seqscan, current_setting('enable_bitmapscan') as bitmapscan, current_setting('enable_sort') as sort";

// A statement's planner hold (`indexOrder`, `noTableWalk`) is the driver's to apply: on
// PostgreSQL connections opened with the settings (no BEGIN, SET and COMMIT around each, which the
// conserver's grouped look-ups paid on every group, issue 59), on PGlite a transaction.
describe(`the driver holds a statement's planner as asked, and no other (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ db, close } = await bareTestDb("planner-holds"));
  });
  afterAll(async () => close?.());

  const settings = async (opts?: QueryOptions) => (await db.query(SETTINGS, [], opts))[0];

  it("keeps a statement from table walks with noTableWalk", async () => {
    expect(await settings({ noTableWalk: true })).toEqual({ seqscan: "off", bitmapscan: "on", sort: "on" });
  });

  it("holds a statement to an index walk with indexOrder", async () => {
    expect(await settings({ indexOrder: true })).toEqual({ seqscan: "on", bitmapscan: "off", sort: "off" });
  });

  it("leaves every other statement to the planner, before and after held ones", async () => {
    await settings({ noTableWalk: true });
    await settings({ indexOrder: true });
    for (const opts of [undefined, { reusePlan: true }])
      expect(await settings(opts)).toEqual({ seqscan: "on", bitmapscan: "on", sort: "on" });
    expect((await db.transaction((tx) => tx.query(SETTINGS)))[0]).toEqual({
      seqscan: "on",
      bitmapscan: "on",
      sort: "on",
    });
  });
});
