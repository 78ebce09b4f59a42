import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Outcome } from "../../../src/batching/coalescer.js";
import {
  type PendingEvent,
  writeGroupOptimistically,
} from "../../../src/services/write/asset-event-group.js";
import type { Db } from "../../../src/store/drivers/db.js";
import { migrate } from "../../../src/store/drivers/migrate.js";
import type { AssetRow } from "../../../src/store/records/assets.js";
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

  /**
   * The database as a concurrent writer leaves it: right after the group has read its assets,
   * `assetId` gets `attributes` (an event that set them committed meanwhile); the first
   * `failing` transactions fail (a connection lost).
   */
  function changingAfterRead(assetId: string, attributes: Record<string, unknown>, failing = 0): Db {
    let changed = false;
    let failures = failing;
    return {
      ...db,
      kind: db.kind,
      query: async (sql, params, opts) => {
        const rows = await db.query(sql, params, opts);
        if (!changed && /^select .* from assets where id = any/.test(sql)) {
          changed = true;
          await db.query("update assets set attributes = $2::jsonb where id = $1", [
            assetId,
            JSON.stringify(attributes),
          ]);
        }
        return rows as never;
      },
      transaction: (fn) =>
        failures-- > 0 ? Promise.reject(new Error("connection lost")) : db.transaction(fn),
    };
  }

  /** Each event's outcome in words. */
  const verdicts = (outcomes: Array<Outcome<unknown>> | undefined) =>
    outcomes?.map((o) => ("row" in o ? "written" : (o.error as Error).message));

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
    expect(verdicts(outcomes)).toEqual(["written", "the asset is closed", "written", "asset not found"]);
    expect(await stored(open)).toBe(2);
    expect(await stored(closed)).toBe(0);
    const queued = await db.query<{ n: number }>(
      "select count(*)::int as n from asset_event_queue where asset_id = $1",
      [open],
    );
    expect(Number(queued[0]?.n)).toBe(2);
  });

  // PGlite runs one transaction at a time and keeps the locking group (the first test above).
  describe.runIf(testEngine() === "postgres")("beside a concurrent writer", () => {
    it("judges an event again on its asset as locked when the asset changed after it was read", async () => {
      const a = await asset({ stage: "open" });
      const b = await asset({ stage: "open" });
      const seen: Array<Record<string, unknown>> = [];
      // Between the read and the write, `a` is closed.
      const closing = changingAfterRead(a, { stage: "closed" });
      expect(
        verdicts(await writeGroupOptimistically(closing, [event(a, seen), event(b, seen)], wallets)),
      ).toEqual(["the asset is closed", "written"]);
      // Judged on what was read, then again on what it had become.
      expect(seen).toEqual([{ stage: "open" }, { stage: "open" }, { stage: "closed" }]);
      expect(await stored(a)).toBe(0);
      expect(await stored(b)).toBe(1);
      // The other way: refused on the state read, the event has nothing to write, compare or judge again.
      const c = await asset({ stage: "closed" });
      const reopening = changingAfterRead(c, { stage: "open" });
      expect(verdicts(await writeGroupOptimistically(reopening, [event(c, seen)], wallets))).toEqual([
        "the asset is closed",
      ]);
      expect(await stored(c)).toBe(0);
    });

    it("stores the erasable values of the events its statement writes, and of no other", async () => {
      const a = await asset({ stage: "open" });
      const b = await asset({ stage: "open" });
      const c = await asset({ stage: "open" });
      const valued = (assetId: string) => {
        const commitment = randomBytes(32).toString("hex");
        const e = {
          ...event(assetId, []),
          erasables: [{ commitment, value: `v ${commitment}`, salt: "c2FsdA==" }],
        };
        return { e, commitment };
      };
      const [ea, eb] = [valued(a), valued(b)];
      // `a` is closed after it was read: its event, refused on the locked asset, leaves no value.
      const closing = changingAfterRead(a, { stage: "closed" });
      expect(verdicts(await writeGroupOptimistically(closing, [ea.e, eb.e], wallets))).toEqual([
        "the asset is closed",
        "written",
      ]);
      // `c` changes but stays open: not written by the statement, its values go in once, with it, by the locking write.
      const ec = valued(c);
      const reshaping = changingAfterRead(c, { stage: "open", v: 2 });
      expect(verdicts(await writeGroupOptimistically(reshaping, [ec.e], wallets))).toEqual(["written"]);
      const kept = await db.query<{ commitment: string }>(
        "select commitment from erasable_values where commitment = any($1::text[])",
        [[ea.commitment, eb.commitment, ec.commitment]],
      );
      expect(kept.map((r) => r.commitment).sort()).toEqual([eb.commitment, ec.commitment].sort());
    });

    it("never writes an event twice when the locking write of the rest fails", async () => {
      const a = await asset({ stage: "open" });
      const b = await asset({ stage: "open" });
      // `b`'s event is written by the optimistic statement; `a` changed, so its two events go to the
      // locking write, which fails once as a whole and is then tried event by event.
      const flaky = changingAfterRead(a, { stage: "open", v: 2 }, 1);
      const events = [event(a, []), event(b, []), event(a, [])];
      expect(verdicts(await writeGroupOptimistically(flaky, events, wallets))).toEqual([
        "written",
        "written",
        "written",
      ]);
      expect(await stored(a)).toBe(2);
      expect(await stored(b)).toBe(1);
      // A lone leftover that fails is that event's failure; what the statement wrote stays written once.
      const c = await asset({ stage: "open" });
      const d = await asset({ stage: "open" });
      const lone = changingAfterRead(c, { stage: "open", v: 3 }, 1);
      expect(verdicts(await writeGroupOptimistically(lone, [event(c, []), event(d, [])], wallets))).toEqual([
        "connection lost",
        "written",
      ]);
      expect(await stored(c)).toBe(0);
      expect(await stored(d)).toBe(1);
    });
  });

  describe.runIf(testEngine() === "postgres")("with the assets earlier groups saw", () => {
    /** The database, counting its reads of assets. */
    function counting(): { db: Db; reads: () => number } {
      let reads = 0;
      return {
        db: {
          ...db,
          kind: db.kind,
          query: (sql, params, opts) => {
            if (/^select .* from assets where id = any/.test(sql)) reads++;
            return db.query(sql, params, opts);
          },
        },
        reads: () => reads,
      };
    }
    const setStage = (id: string, stage: string) =>
      db.query("update assets set attributes = $2::jsonb where id = $1", [id, JSON.stringify({ stage })]);

    it("reads an asset once for the groups after it, and again once it has changed", async () => {
      const a = await asset({ stage: "open" });
      const known = new Map<string, AssetRow>();
      const c = counting();
      for (let i = 0; i < 3; i++)
        expect(verdicts(await writeGroupOptimistically(c.db, [event(a, [])], wallets, known))).toEqual([
          "written",
        ]);
      expect(c.reads()).toBe(1);
      // Changed by another writer: the remembered state no longer matches, so the event is judged on the
      // asset as locked, and the next group reads it again.
      await setStage(a, "closed");
      expect(verdicts(await writeGroupOptimistically(c.db, [event(a, [])], wallets, known))).toEqual([
        "the asset is closed",
      ]);
      expect(known.has(a)).toBe(false);
      expect(verdicts(await writeGroupOptimistically(c.db, [event(a, [])], wallets, known))).toEqual([
        "the asset is closed",
      ]);
      expect(c.reads()).toBe(2);
      expect(await stored(a)).toBe(3);
    });

    it("never refuses an event on a remembered asset", async () => {
      const a = await asset({ stage: "closed" });
      const b = await asset({ stage: "open" });
      const known = new Map<string, AssetRow>();
      const c = counting();
      expect(
        verdicts(await writeGroupOptimistically(c.db, [event(a, []), event(b, [])], wallets, known)),
      ).toEqual(["the asset is closed", "written"]);
      // Reopened elsewhere: remembered closed, the group is judged again on both assets read now.
      await setStage(a, "open");
      const seen: Array<Record<string, unknown>> = [];
      expect(
        verdicts(await writeGroupOptimistically(c.db, [event(a, seen), event(b, seen)], wallets, known)),
      ).toEqual(["written", "written"]);
      expect(seen).toEqual([{ stage: "closed" }, { stage: "open" }, { stage: "open" }, { stage: "open" }]);
      expect(c.reads()).toBe(2);
      expect(await stored(a)).toBe(1);
      expect(await stored(b)).toBe(2);
    });

    it("judges a group again once, however its assets were known", async () => {
      const a = await asset({ stage: "closed" });
      const b = await asset({ stage: "open" });
      const known = new Map<string, AssetRow>();
      const c = counting();
      // `b` known from an earlier group, `a` not: `a`'s refusal holds on the fresh read too.
      expect(verdicts(await writeGroupOptimistically(c.db, [event(b, [])], wallets, known))).toEqual([
        "written",
      ]);
      expect(
        verdicts(await writeGroupOptimistically(c.db, [event(a, []), event(b, [])], wallets, known)),
      ).toEqual(["the asset is closed", "written"]);
      // One read for `b` alone, one for `a`, one for both when the group is judged again.
      expect(c.reads()).toBe(3);
    });
  });

  it("leaves groups that create or change assets to the locking write", async () => {
    const a = await asset({ stage: "open" });
    const changing = { ...event(a, []), assetAttributes: { stage: "open", more: "x" } };
    expect(await writeGroupOptimistically(db, [changing], wallets)).toBeUndefined();
    expect(await stored(a)).toBe(0);
  });
});
