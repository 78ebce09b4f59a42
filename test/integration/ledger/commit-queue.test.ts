import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdTimestampGenerator } from "../../../src/core/log/idtimestamp.js";
import { idTimestampToMillis, parseIdTimestamp } from "../../../src/formats/ledger/idtimestamp.js";
import type { Db } from "../../../src/store/drivers/db.js";
import { migrate } from "../../../src/store/drivers/migrate.js";
import { insertAssetEvents } from "../../../src/store/records/asset-event-writes.js";
import { EVENT_STATUS_SQL, getAssetEvent } from "../../../src/store/records/asset-events.js";
import { insertFreeEvents } from "../../../src/store/records/free-events.js";
import { commitBatch } from "../../../src/workers/commit-batch.js";
import { assetEventRow, tenancyWithAsset } from "../../helpers/asset-event-row.js";
import { bareTestDb, migrateBefore, testEngine } from "../../helpers/databases.js";

const event = assetEventRow;

// The committer takes MERKLE_LOG events off a queue and writes their log entries; it never
// rewrites the event rows, whose commit fields are read from those entries.
describe(`the commit queue (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ db, close } = await bareTestDb("commit-queue"));
  });
  afterAll(async () => close?.());

  const statusOf = async (id: string) =>
    (
      await db.query<{ s: string }>(`select ${EVENT_STATUS_SQL} as s from asset_events where id = $1`, [id])
    )[0]?.s;

  it("queues STORED MERKLE_LOG events of an older database when it migrates", async () => {
    // The schema as it was before the queue, with one waiting and one committed event.
    await migrateBefore(db, "016");
    const { tenant, asset } = await tenancyWithAsset(db);
    const waiting = event(tenant, asset);
    const done = event(tenant, asset);
    const simple = event(tenant, asset, "SIMPLE_HASH");
    for (const [e, status] of [
      [waiting, "STORED"],
      [done, "COMMITTED"],
      [simple, "STORED"],
    ] as const)
      await db.query(
        `insert into asset_events (id, asset_id, tenant_id, operation, behaviour, timestamp_declared, timestamp_accepted,
           principal_declared, principal_accepted, confirmation_status, proof_mechanism)
         values ($1, $2, $3, 'Record', 'RecordEvidence', now(), now(), '{}', '{}', $4, $5)`,
        [e.id, asset, tenant, status, e.proof_mechanism],
      );
    await migrate(db);
    const queued = await db.query<{ id: string }>("select id from asset_event_queue where tenant_id = $1", [
      tenant,
    ]);
    expect(queued.map((q) => q.id)).toEqual([waiting.id]);
  });

  it("commits queued events without writing their rows, and reads their commit from the log", async () => {
    const { tenant, asset } = await tenancyWithAsset(db);
    const events = [event(tenant, asset), event(tenant, asset), event(tenant, asset)];
    await insertAssetEvents(db, events);
    expect(await statusOf(events[0]?.id as string)).toBe("STORED");
    const gen = new IdTimestampGenerator(7);
    const done = await db.transaction((tx) => commitBatch(tx, tenant, gen, 2));
    expect(done.count).toBe(2);
    // The oldest two, in the order they were stored; the third still waits.
    const left = await db.query<{ id: string }>("select id from asset_event_queue where tenant_id = $1", [
      tenant,
    ]);
    expect(left.map((r) => r.id)).toEqual([events[2]?.id]);
    expect(await statusOf(events[2]?.id as string)).toBe("STORED");
    for (const [i, e] of events.slice(0, 2).entries()) {
      const raw = (
        await db.query<{ confirmation_status: string; mmr_index: number | null }>(
          "select confirmation_status, mmr_index from asset_events where id = $1",
          [e.id],
        )
      )[0];
      expect(raw).toEqual({ confirmation_status: "STORED", mmr_index: null });
      expect(await statusOf(e.id)).toBe("COMMITTED");
      const read = await getAssetEvent(db, asset, e.id);
      const entry = (
        await db.query<{ mmr_index: number; idtimestamp: string }>(
          "select mmr_index, idtimestamp from log_entries where record_id = $1",
          [e.id],
        )
      )[0];
      expect(read?.mmr_index).toBe(Number(entry?.mmr_index));
      expect(read?.mmr_index).toBe([0, 1][i]);
      expect(read?.idtimestamp).toBe(entry?.idtimestamp);
      const { id, epoch } = parseIdTimestamp(entry?.idtimestamp as string);
      expect(read?.timestamp_committed?.getTime()).toBe(idTimestampToMillis(id, epoch));
      expect(read?.covering_seal).toBeNull();
    }
  });

  it("commits every queued event when asset-free events share the batches", async () => {
    const { tenant, asset } = await tenancyWithAsset(db);
    // Asset events and asset-free events accepted in turn, more of them than a batch takes.
    const t0 = Date.now() - 60_000;
    const assetEvents = [0, 2, 4].map((k) => ({
      ...event(tenant, asset),
      timestamp_accepted: new Date(t0 + k),
    }));
    await insertAssetEvents(db, assetEvents);
    const free = [1, 3, 5].map(() => randomUUID());
    await insertFreeEvents(
      db,
      free.map((id, i) => ({
        id,
        tenant_id: tenant,
        attributes: {},
        trails: [],
        event_type: "",
        created_by: "",
        created_at: t0 + 2 * i + 1,
      })),
    );
    const gen = new IdTimestampGenerator(7);
    const counts: number[] = [];
    for (;;) {
      const done = await db.transaction((tx) => commitBatch(tx, tenant, gen, 4));
      if (done.count === 0) break;
      counts.push(done.count);
    }
    expect(counts).toEqual([4, 2]);
    const entries = await db.query<{ record_id: string }>(
      "select record_id from log_entries where tenant_id = $1 order by mmr_index",
      [tenant],
    );
    // Every record once, in the order accepted.
    expect(entries.map((e) => e.record_id)).toEqual([
      assetEvents[0]?.id,
      free[0],
      assetEvents[1]?.id,
      free[1],
      assetEvents[2]?.id,
      free[2],
    ]);
    for (const e of assetEvents) expect(await statusOf(e.id)).toBe("COMMITTED");
    // The asset-free events left their queue with their commits.
    expect(await db.query("select id from event_queue where tenant_id = $1", [tenant])).toEqual([]);
  });

  it("leaves SIMPLE_HASH events to the anchorer", async () => {
    const { tenant, asset } = await tenancyWithAsset(db, "SIMPLE_HASH");
    const e = event(tenant, asset, "SIMPLE_HASH");
    await insertAssetEvents(db, [e]);
    const queued = await db.query("select id from asset_event_queue where tenant_id = $1", [tenant]);
    expect(queued).toEqual([]);
    const done = await db.transaction((tx) => commitBatch(tx, tenant, new IdTimestampGenerator(7), 10));
    expect(done.count).toBe(0);
    expect(await statusOf(e.id)).toBe("STORED");
  });
});
