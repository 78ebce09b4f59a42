import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PendingEvent, writeGroupOptimistically } from "../../../src/services/write/event-batcher.js";
import type { AssetRow } from "../../../src/store/assets.js";
import type { Db } from "../../../src/store/db.js";
import { migrate } from "../../../src/store/migrate.js";
import { bareTestDb, testEngine } from "../../helpers/databases.js";

const nobody = { issuer: "", subject: "", display_name: "", email: "" };

// The optimistic group (issue 35): events authorised against assets read without a lock, written
// by one statement only where each asset is still what was read; the rest authorised again
// against the locked asset. Each event must be judged on the asset it is written on.
describe(`a group written optimistically (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  const tenant = randomUUID();
  const wallets = new Map([[tenant, "0xwallet"]]);
  beforeAll(async () => {
    ({ db, close } = await bareTestDb("optimistic-group"));
    await migrate(db);
    await db.query("insert into tenancies (id, display_name) values ($1, 't')", [tenant]);
  });
  afterAll(async () => close?.());

  async function asset(attributes: Record<string, unknown>): Promise<string> {
    const id = randomUUID();
    await db.query(
      "insert into assets (id, tenant_id, proof_mechanism, attributes) values ($1, $2, 'MERKLE_LOG', $3::jsonb)",
      [id, tenant, JSON.stringify(attributes)],
    );
    return id;
  }

  /** An event that may be written only while its asset's `stage` is `open`; `seen` records what it was judged on. */
  function event(assetId: string, seen: Array<Record<string, unknown>>): PendingEvent {
    return {
      assetId,
      tenantId: tenant,
      operation: "Record",
      behaviour: "RecordEvidence",
      eventAttributes: { n: randomUUID() },
      assetAttributes: {},
      declared: nobody,
      accepted: nobody,
      authorize: (a: AssetRow) => {
        seen.push({ ...a.attributes });
        if (a.attributes.stage !== "open") throw new Error("the asset is closed");
      },
    };
  }

  /** A database on which the assets change right after the group has read them, as a concurrent group's would. */
  function changingAfterRead(change: () => Promise<void>): Db {
    let done = false;
    return {
      ...db,
      kind: db.kind,
      query: async (sql, params, opts) => {
        const rows = await db.query(sql, params, opts);
        if (!done && /^select .* from assets where id = any/.test(sql)) {
          done = true;
          await change();
        }
        return rows as never;
      },
      transaction: (fn) => db.transaction(fn),
    };
  }

  async function stored(assetId: string): Promise<number> {
    const rows = await db.query<{ n: number }>(
      "select count(*)::int as n from asset_events where asset_id = $1",
      [assetId],
    );
    return Number(rows[0]?.n);
  }

  it("writes a group that changes no asset in one statement, each event once, refusals alone", async () => {
    const open = await asset({ stage: "open" });
    const closed = await asset({ stage: "closed" });
    const seen: Array<Record<string, unknown>> = [];
    const outcomes = await writeGroupOptimistically(
      db,
      [event(open, seen), event(closed, seen), event(open, seen), event(randomUUID(), seen)],
      wallets,
    );
    if (testEngine() === "pglite") {
      // One transaction at a time there: the locking group is already as cheap, so it is left to it.
      expect(outcomes).toBeUndefined();
      return;
    }
    expect(outcomes?.map((o) => ("row" in o ? "written" : (o.error as Error).message))).toEqual([
      "written",
      "the asset is closed",
      "written",
      "asset not found",
    ]);
    expect(await stored(open)).toBe(2);
    expect(await stored(closed)).toBe(0);
    const queued = await db.query<{ n: number }>(
      "select count(*)::int as n from asset_event_queue where asset_id = $1",
      [open],
    );
    expect(Number(queued[0]?.n)).toBe(2);
  });

  it("judges an event again on its asset as locked when the asset changed after it was read", async () => {
    if (testEngine() === "pglite") return;
    const a = await asset({ stage: "open" });
    const b = await asset({ stage: "open" });
    const seen: Array<Record<string, unknown>> = [];
    // Between the read and the write, `a` is closed (a concurrent event set its attributes).
    const racing = changingAfterRead(async () => {
      await db.query(`update assets set attributes = '{"stage":"closed"}'::jsonb where id = $1`, [a]);
    });
    const outcomes = await writeGroupOptimistically(racing, [event(a, seen), event(b, seen)], wallets);
    expect(outcomes?.map((o) => ("row" in o ? "written" : (o.error as Error).message))).toEqual([
      "the asset is closed",
      "written",
    ]);
    // Judged on what was read, then again on what it had become.
    expect(seen).toEqual([{ stage: "open" }, { stage: "open" }, { stage: "closed" }]);
    expect(await stored(a)).toBe(0);
    expect(await stored(b)).toBe(1);

    // And the other way: an asset opened meanwhile takes the event the read state would have refused.
    const c = await asset({ stage: "closed" });
    const reopening = changingAfterRead(async () => {
      await db.query(`update assets set attributes = '{"stage":"open"}'::jsonb where id = $1`, [c]);
    });
    const again = await writeGroupOptimistically(reopening, [event(c, seen)], wallets);
    // Refused on the state read: nothing to write, so nothing is compared or judged again.
    expect(again?.map((o) => ("row" in o ? "written" : (o.error as Error).message))).toEqual([
      "the asset is closed",
    ]);
    expect(await stored(c)).toBe(0);
  });

  it("never writes an event twice when the locking write of the rest fails once", async () => {
    if (testEngine() === "pglite") return;
    const a = await asset({ stage: "open" });
    const b = await asset({ stage: "open" });
    const seen: Array<Record<string, unknown>> = [];
    const racing = changingAfterRead(async () => {
      await db.query(`update assets set attributes = '{"stage":"open","v":2}'::jsonb where id = $1`, [a]);
    });
    let failures = 1;
    const flaky: Db = {
      ...racing,
      kind: racing.kind,
      query: racing.query,
      transaction: (fn) => {
        if (failures-- > 0) return Promise.reject(new Error("connection lost"));
        return db.transaction(fn);
      },
    };
    // `b` is written by the optimistic statement; `a` changed, so its two events go to the locking
    // write, which fails once as a whole and is then tried event by event.
    const outcomes = await writeGroupOptimistically(
      flaky,
      [event(a, seen), event(b, seen), event(a, seen)],
      wallets,
    );
    expect(outcomes?.map((o) => ("row" in o ? "written" : (o.error as Error).message))).toEqual([
      "written",
      "written",
      "written",
    ]);
    expect(await stored(a)).toBe(2);
    expect(await stored(b)).toBe(1);
    // A lone leftover that fails is that event's failure; what the statement wrote stays written once.
    const c = await asset({ stage: "open" });
    const d = await asset({ stage: "open" });
    failures = 1;
    const racingC = changingAfterRead(async () => {
      await db.query(`update assets set attributes = '{"stage":"open","v":3}'::jsonb where id = $1`, [c]);
    });
    const lone = await writeGroupOptimistically(
      { ...racingC, kind: racingC.kind, query: racingC.query, transaction: flaky.transaction },
      [event(c, seen), event(d, seen)],
      wallets,
    );
    expect(lone?.map((o) => ("row" in o ? "written" : (o.error as Error).message))).toEqual([
      "connection lost",
      "written",
    ]);
    expect(await stored(c)).toBe(0);
    expect(await stored(d)).toBe(1);
  });

  it("leaves groups that create or change assets to the locking write", async () => {
    const a = await asset({ stage: "open" });
    const changing = { ...event(a, []), assetAttributes: { stage: "open", more: "x" } };
    expect(await writeGroupOptimistically(db, [changing], wallets)).toBeUndefined();
    expect(await stored(a)).toBe(0);
  });
});
