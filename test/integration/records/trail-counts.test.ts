import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../../src/store/drivers/db.js";
import { migrate } from "../../../src/store/drivers/migrate.js";
import {
  countTrailEvents,
  insertFreeEvents,
  type NewFreeEvent,
} from "../../../src/store/records/free-events.js";
import { bareTestDb, migrateBefore, testEngine } from "../../helpers/databases.js";

const freeEvent = (tenant: string, trails: string[]): NewFreeEvent => ({
  id: randomUUID(),
  tenant_id: tenant,
  attributes: {},
  trails,
  event_type: "",
  created_by: "test",
  created_at: Date.now(),
});

// `events/search` answers the total of a one-trail search from counts the inserts keep: they
// must equal what counting the events says, for every trail, the whole tenancy, and old rows.
describe(`asset-free event trail counts (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ db, close } = await bareTestDb("trail-counts"));
  });
  afterAll(async () => close?.());

  const tenancy = async () => {
    const tenant = randomUUID();
    await db.query("insert into tenancies (id, display_name) values ($1, 't')", [tenant]);
    return tenant;
  };
  /** What counting the events themselves says: events carrying `trail`, or all with `''`. */
  const counted = async (tenant: string, trail: string) =>
    Number(
      (
        await db.query<{ n: string }>(
          "select count(*) as n from events where tenant_id = $1 and ($2 = '' or trails && array[$2])",
          [tenant, trail],
        )
      )[0]?.n,
    );

  it("counts the events of a database older than the counts when it migrates", async () => {
    await migrateBefore(db, "028");
    const [a, b] = [await tenancy(), await tenancy()];
    for (const [tenant, trails] of [
      [a, ["x", "y"]],
      [a, ["x", "x"]],
      [a, []],
      [b, ["x"]],
    ] as const)
      await db.query(
        "insert into events (id, tenant_id, trails, created_at, confirmation_status) values ($1, $2, $3, 1, 'COMMITTED')",
        [randomUUID(), tenant, trails],
      );
    await migrate(db);
    expect(await countTrailEvents(db, a, "x")).toBe(2);
    expect(await countTrailEvents(db, a, "y")).toBe(1);
    expect(await countTrailEvents(db, a, "")).toBe(3);
    expect(await countTrailEvents(db, b, "x")).toBe(1);
    expect(await countTrailEvents(db, b, "y")).toBe(0);
  });

  it("adds each group's events to their trails once per event, per tenancy, in the insert's transaction", async () => {
    const [a, b] = [await tenancy(), await tenancy()];
    await insertFreeEvents(db, [
      freeEvent(a, ["busy", "vcon://1"]),
      freeEvent(a, ["busy", "busy", "vcon://2"]),
      freeEvent(b, ["busy"]),
      freeEvent(a, []),
    ]);
    await insertFreeEvents(db, [freeEvent(a, ["busy", "vcon://1"]), freeEvent(b, ["other"])]);
    // A group that rolls back leaves the counts as they were.
    await expect(
      db.transaction(async (tx) => {
        await insertFreeEvents(tx, [freeEvent(a, ["busy"])]);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    for (const tenant of [a, b])
      for (const trail of ["busy", "vcon://1", "vcon://2", "other", "none", ""])
        expect(await countTrailEvents(db, tenant, trail)).toBe(await counted(tenant, trail));
    expect(await countTrailEvents(db, a, "busy")).toBe(3);
    expect(await countTrailEvents(db, a, "")).toBe(4);
  });
});
