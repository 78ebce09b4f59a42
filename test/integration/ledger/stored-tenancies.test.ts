import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../../src/store/drivers/db.js";
import { migrate } from "../../../src/store/drivers/migrate.js";
import { openCommitWork, tenantsWithStoredRecords } from "../../../src/store/ledger/ledger.js";
import { uncommittedSince } from "../../../src/store/ledger/waiting-work.js";
import { insertAssetEvents } from "../../../src/store/records/asset-event-writes.js";
import { confirmSealedFreeEvents, insertFreeEvents } from "../../../src/store/records/free-events.js";
import { assetEventRow } from "../../helpers/asset-event-row.js";
import { bareTestDb, migrateBefore, testEngine } from "../../helpers/databases.js";
import { recordingDb } from "../../helpers/recording-db.js";

const newFreeEvent = (tenant: string, createdAt: number) => ({
  id: randomUUID(),
  tenant_id: tenant,
  attributes: {},
  trails: [],
  event_type: "",
  created_by: "",
  created_at: createdAt,
});

// The committer's sweep: which tenancies have records waiting for their log.
describe(`tenancies with records to commit (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  const tenancy = async (name: string) => {
    const id = randomUUID();
    await db.query("insert into tenancies (id, display_name) values ($1, $2)", [id, name]);
    return id;
  };
  // Written as the service writes events (MERKLE_LOG ones join the commit queue); a committed
  // one has left the queue, as the committer takes it.
  const assetEvent = async (tenant: string, status: string, proof: string) => {
    const asset = randomUUID();
    await db.query("insert into assets (id, tenant_id, proof_mechanism) values ($1, $2, $3)", [
      asset,
      tenant,
      proof,
    ]);
    const row = assetEventRow(tenant, asset, proof);
    await insertAssetEvents(db, [row]);
    if (status === "COMMITTED") await db.query("delete from asset_event_queue where id = $1", [row.id]);
  };
  // Written as the service writes them (queued, STORED); a committed one as the committer leaves it.
  const freeEvent = async (tenant: string, status: string) => {
    if (status === "STORED") return insertFreeEvents(db, [newFreeEvent(tenant, 0)]);
    return db.query(
      "insert into events (id, tenant_id, created_at, confirmation_status) values ($1, $2, 0, $3)",
      [randomUUID(), tenant, status],
    );
  };

  beforeAll(async () => {
    ({ db, close } = await bareTestDb("stored-tenancies"));
    await migrate(db);
  });
  afterAll(async () => close?.());

  it("names every tenancy with a STORED log record, and no other", async () => {
    const merkle = await tenancy("merkle");
    const free = await tenancy("free");
    const simple = await tenancy("simple hash only");
    const done = await tenancy("all committed");
    await tenancy("empty");
    for (let i = 0; i < 3; i++) await assetEvent(merkle, "COMMITTED", "MERKLE_LOG");
    await assetEvent(merkle, "STORED", "MERKLE_LOG");
    await freeEvent(free, "COMMITTED");
    await freeEvent(free, "STORED");
    // Simple-hash events wait for the anchorer's batch, not for a log.
    await assetEvent(simple, "STORED", "SIMPLE_HASH");
    await assetEvent(done, "COMMITTED", "MERKLE_LOG");
    await freeEvent(done, "COMMITTED");
    const names = new Map<string, string>([
      [merkle, "merkle"],
      [free, "free"],
    ]);
    const found = (await tenantsWithStoredRecords(db)).map((t) => names.get(t) ?? t).sort();
    expect(found).toEqual(["free", "merkle"]);
  });
});

/**
 * A backlog analysed while it was all STORED, then mostly committed (issue 72's million-record
 * bench: the sweep found STORED rows through the `seq` index, walking every committed row, ~2 s a
 * probe, and each commit batch as long): what waits is read from its queue, whatever the
 * statistics say, planned with the values or without them (`reusePlan`).
 */
describe(`the committer's reads after a backlog, on its statistics (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  const tenant = randomUUID();
  const N = 20_000;

  beforeAll(async () => {
    ({ db, close } = await bareTestDb("stored-backlog"));
    // Stored before the queue existed: the migration queues them.
    await migrateBefore(db, "052");
    await db.query("insert into tenancies (id, display_name) values ($1, 'backlog')", [tenant]);
    await db.query(
      `insert into events (id, tenant_id, created_at, confirmation_status)
       select gen_random_uuid(), $1, g, 'STORED' from generate_series(1, ${N}) g`,
      [tenant],
    );
    await migrate(db);
    await db.query("analyze events");
    await db.query("analyze event_queue");
    // All but the newest ten committed as the committer does (the oldest half confirmed, as a seal leaves them).
    await db.query(
      `with done as (delete from event_queue where seq <= ${N - 10} returning id)
       update events set confirmation_status = case when seq <= ${N / 2} then 'CONFIRMED' else 'COMMITTED' end,
         mmr_index = seq where id in (select id from done)`,
    );
  });
  afterAll(async () => close?.());

  /** The statements `read` sends, each explained: planned with its values, then without them. */
  async function plans(
    read: (q: ReturnType<typeof recordingDb>["db"]) => Promise<unknown>,
  ): Promise<string[]> {
    const { db: rec, seen } = recordingDb();
    await read(rec);
    const out: string[] = [];
    for (const st of seen) {
      for (const mode of ["force_custom_plan", "force_generic_plan"]) {
        out.push(
          await db.transaction(async (tx) => {
            await tx.query(`set local plan_cache_mode = ${mode}`);
            await tx.query(`prepare probe_plan as ${st.sql}`);
            const args = st.params.map((p) => (typeof p === "string" ? `'${p}'` : String(p)));
            const rows = await tx.query<Record<string, string>>(
              `explain execute probe_plan${args.length ? `(${args.join(", ")})` : ""}`,
            );
            await tx.query("deallocate probe_plan");
            return rows.map((r) => Object.values(r)[0]).join("\n");
          }),
        );
      }
    }
    return out;
  }

  it("finds the tenancy and its oldest waiting records", async () => {
    expect(await tenantsWithStoredRecords(db)).toEqual([tenant]);
    const work = await db.transaction((tx) => openCommitWork(tx, tenant, 5));
    expect(work?.free.map((f) => f.created_at)).toEqual([N - 9, N - 8, N - 7, N - 6, N - 5]);
    expect(work?.free.map((f) => f.seq)).toEqual([N - 9, N - 8, N - 7, N - 6, N - 5]);
    expect((await uncommittedSince(db)).map((w) => [w.tenant_id, w.since_ms])).toEqual([[tenant, N - 9]]);
  });

  it("reads the waiting records from the queue and the rows by their key, never walking the events", async () => {
    const all = [
      ...(await plans((q) => tenantsWithStoredRecords(q))),
      ...(await plans((q) => openCommitWork(q, tenant, 2000))),
      ...(await plans((q) => uncommittedSince(q))),
    ];
    for (const plan of all) {
      expect(plan).toContain("event_queue");
      expect(plan).not.toMatch(/events_seq_key|events_tenant|events_stored|Seq Scan on events/);
    }
  });

  it("confirms a seal's records from the partial index of the COMMITTED", async () => {
    for (const plan of await plans((q) => confirmSealedFreeEvents(q, tenant, N))) {
      expect(plan).toContain("events_committed");
    }
    await db.transaction((tx) => confirmSealedFreeEvents(tx, tenant, N));
    const [left] = await db.query<{ n: number }>(
      "select count(*)::int as n from events where tenant_id = $1 and confirmation_status = 'COMMITTED'",
      [tenant],
    );
    expect(left?.n).toBe(0);
  });
});
