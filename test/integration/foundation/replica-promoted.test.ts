import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PgReplica, startPgReplica } from "../../../bench/pg-replica.js";
import { receiptFor } from "../../../src/services/ledger/proofs.js";
import { receiptsOfRecords } from "../../../src/services/ledger/receipts-in-bulk.js";
import { tlogProofFor } from "../../../src/services/ledger/tlog-proof.js";
import { entryOfRecord } from "../../../src/store/ledger/ledger.js";
import { keysFromKeySet } from "../../../src/verify/receipts/keys.js";
import { verifyRecordReceipt } from "../../../src/verify/receipts/record.js";
import { freshPostgresDatabase, POSTGRES_ADMIN_URL, testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { newAsset, postVconEvent } from "../../helpers/vcon-event.js";

/*
 * Issue 60: what a writer of the read database (DATABASE_READ_URL) can do. A streaming standby
 * cannot be written; to write to it one must promote it, and then it is no standby of the primary.
 * Here a real standby serves reads, is promoted, and its rows are rewritten (a revocation's leaf
 * and record, every period row): every signing path that reads the read database either refuses
 * (503, when it read the promoted copy before it was found out) or ignores it (the primary serves
 * once it is refused), and never signs the rewritten rows; the refusal is counted in /metrics.
 */
async function replicaOrSkip(): Promise<PgReplica | undefined> {
  try {
    return await startPgReplica(POSTGRES_ADMIN_URL);
  } catch (err) {
    if (process.env.CI === "true")
      throw new Error(`the promoted-replica test needs a streaming replica in CI: ${(err as Error).message}`);
    console.warn(`replica-promoted skipped: ${(err as Error).message}`);
    return undefined;
  }
}
const replica = testEngine() === "postgres" ? await replicaOrSkip() : undefined;
if (testEngine() !== "postgres")
  console.info(
    "replica-promoted: skipped on PGlite, which has no read URL (DATABASE_READ_URL needs PostgreSQL)",
  );

const METRICS = "metrics-token";

describe.runIf(replica)("a read database promoted and rewritten", () => {
  let s: TestService;
  let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let token: string;
  let asset: string;
  const records: string[] = [];
  const events = new Map<string, Record<string, unknown>>();

  beforeAll(async () => {
    db = await freshPostgresDatabase();
    s = await startTestService({
      DATABASE_URL: db.url,
      DATABASE_READ_URL: (replica as PgReplica).urlOf(db.url),
      ARCHIVIST_READ_WAIT_MS: "200",
      ARCHIVIST_METRICS_TOKEN: METRICS,
    });
    token = await s.token(s.a);
    asset = await newAsset(s, token);
    for (let i = 0; i < 3; i++) {
      const id = (await postVconEvent(s, token, asset, randomUUID(), "vcon_create", "2026-11-01")).identity;
      records.push(id.split("/").pop() as string);
    }
  }, 120_000);
  afterAll(async () => {
    await s?.stop();
    await replica?.close();
    await db?.drop();
  });

  const keys = async () =>
    keysFromKeySet(new Uint8Array(await (await s.api("/.well-known/scitt-keys")).arrayBuffer()));
  const forget = () => {
    const c = s.service.ctx.caches;
    c.receipts.clear();
    c.entries.clear();
    c.latestSeals.clear();
  };
  /** Every signing path over the read database; each answer refused (503) or true to the records as logged. */
  const everyPath = async (honestProof: string): Promise<{ refused: number; signed: number }> => {
    const ctx = s.service.ctx;
    const k = await keys();
    const n = { refused: 0, signed: 0 };
    const attempt = async <T>(p: () => Promise<T>, check: (v: T) => void) => {
      forget();
      try {
        check(await p());
        n.signed++;
      } catch (err) {
        if ((err as { kind?: string }).kind !== "unavailable") throw err;
        n.refused++;
      }
    };
    const verifies = (id: string, r: Uint8Array) => {
      const v = verifyRecordReceipt(events.get(id) as never, r, k);
      expect(v.ok, JSON.stringify(v)).toBe(true);
    };
    const record = records[0] as string;
    for (const profile of ["mmr", "rfc9162"] as const) {
      await attempt(
        () => receiptFor(ctx, record, profile),
        (r) => verifies(record, r),
      );
      await attempt(
        () => receiptsOfRecords(ctx, records, profile),
        (m) => {
          expect(m.size).toBe(records.length);
          for (const [id, r] of m) verifies(id, r.receipt);
        },
      );
    }
    await attempt(
      () => tlogProofFor(ctx, record, `events/${record}`),
      (p) => expect(p).toBe(honestProof),
    );
    return n;
  };

  it("signs nothing from the promoted copy's rows, and stops reading it", async () => {
    const ctx = s.service.ctx;
    // Sealed and checkpointed, and served from the replica while it is a standby.
    await until(async () => {
      await s.service.workers.flush();
      const all = await Promise.all(records.map((id) => entryOfRecord(ctx.db, id)));
      const seal = await ctx.db.query<{ mmr_size: string }>(
        "select max(mmr_size) as mmr_size from seals where tenant_id = $1",
        [all[0]?.tenant_id],
      );
      return all.every((e) => e && e.mmr_index < Number(seal[0]?.mmr_size)) || undefined;
    });
    for (const id of records)
      events.set(id, (await (await s.api(`/archivist/v2/${asset}/events/${id}`, { token })).json()) as never);
    const record = records[0] as string;
    const honestProof = await tlogProofFor(ctx, record, `events/${record}`);
    await until(async () => {
      const before = ctx.reads.served.replica;
      expect(await everyPath(honestProof)).toEqual({ refused: 0, signed: 5 });
      return ctx.reads.served.replica > before || undefined;
    });

    // Promoted: writable, and written.
    await (replica as PgReplica).promote();
    const promoted = new pg.Client({ connectionString: (replica as PgReplica).urlOf(db.url) });
    await promoted.connect();
    try {
      await promoted.query(
        "update log_entries set leaf = set_byte(leaf, 0, get_byte(leaf, 0) # 1) where record_id = $1",
        [record],
      );
      await promoted.query(
        `update asset_events set event_attributes = event_attributes || '{"vcon_operation": "vcon_consent_accepted.analysis"}'::jsonb where id = $1`,
        [record],
      );
      await promoted.query("delete from log_periods");
    } finally {
      await promoted.end();
    }
    // Until it is found out, a path that read it refuses; after, the primary serves every path.
    await until(async () => {
      await everyPath(honestProof);
      return ctx.reads.refused.read_url > 0 || undefined;
    });
    const servedBefore = ctx.reads.served.replica;
    expect(await everyPath(honestProof)).toEqual({ refused: 0, signed: 5 });
    expect(ctx.reads.served.replica).toBe(servedBefore);
    const metrics = await (
      await s.api("/metrics", { headers: { authorization: `Bearer ${METRICS}` } })
    ).text();
    expect(
      Number(/^archivist_standby_refused_total\{what="read_url"\} (\d+)$/m.exec(metrics)?.[1]),
    ).toBeGreaterThan(0);
  });
});
