import { randomUUID } from "node:crypto";
import { IdTimestampGenerator } from "../../src/core/log/idtimestamp.js";
import type { Queryable } from "../../src/store/drivers/db.js";
import { storedEvents } from "../../src/store/records/asset-event-writes.js";
import type { StoredAssetEvent } from "../../src/store/records/asset-events.js";
import { FreshEvents } from "../../src/store/records/fresh-events.js";
import { commitBatch } from "../../src/workers/commit-batch.js";
import { LogFrontiers } from "../../src/workers/log-frontiers.js";

/** Entries per batch: what the committer gathers in 25 ms at ~2,000 events/s. */
const BATCH = 50;

/**
 * The committer's statements answered from memory, as PostgreSQL would answer them for one log
 * that only this committer appends to. Any other statement is a bench that no longer matches
 * the committer, and fails loudly rather than measuring less work.
 */
class LogInMemory implements Queryable {
  queued: string[] = [];
  private mmrSize = 0;
  private treeSize = 0;

  constructor(private readonly tenantId: string) {}

  async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    const rows = ((): unknown[] => {
      // The batch's opening read (`openCommitWork`): the lock, the queue, no asset-free events, the log.
      if (sql.startsWith("with lock as materialized"))
        return [
          {
            locked: true,
            queued: this.queued.map((id, seq) => ({ id, seq })),
            free: null,
            log: {
              tenant_id: this.tenantId,
              mmr_size: this.mmrSize,
              last_idtimestamp: "",
              sealed_size: 0,
              tree_size: this.treeSize,
            },
          },
        ];
      if (sql.startsWith("with nodes as")) {
        // The batch's one write: its parameters are built (the committer's work) but not sent, so
        // node-postgres's own encoding of them is not in this rate.
        this.mmrSize = params[18] as number;
        this.treeSize = (params[20] as number | undefined) ?? this.treeSize;
        return [];
      }
      throw new Error(`the commit bench does not answer: ${sql.slice(0, 60)}`);
    })();
    return rows as R[];
  }
}

function rowsOf(tenantId: string, assetId: string, n: number): StoredAssetEvent[] {
  const principal = { issuer: "https://bench.example/", subject: "bench", display_name: "bench", email: "" };
  const now = new Date();
  return storedEvents(
    Array.from({ length: n }, (_, i) => ({
      id: randomUUID(),
      asset_id: assetId,
      tenant_id: tenantId,
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: {
        arc_display_type: "vcon_created",
        subject: `vcon://bench-${i}`,
        payload: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        payload_hash_alg: "SHA-256",
      },
      asset_attributes: {},
      timestamp_declared: now,
      timestamp_accepted: now,
      principal_declared: principal,
      principal_accepted: principal,
      confirmation_status: "STORED",
      proof_mechanism: "MERKLE_LOG",
      public: false,
      from_address: "0x0000000000000000000000000000000000000000",
    })),
  );
}

/**
 * Log entries the committer makes per second on one thread without a database: the batch's
 * JavaScript alone (each entry's record and leaf hash, both trees' new nodes, the write's
 * parameters as the committer builds them, not the driver's encoding of them), in batches of 50
 * from its hand-off, as under ingest. The rows it takes are made outside the timed part.
 */
export async function commitEntryRate(ms: number): Promise<number> {
  const tenantId = randomUUID();
  const assetId = randomUUID();
  const log = new LogInMemory(tenantId);
  const fresh = new FreshEvents().open();
  const frontiers = new LogFrontiers();
  const gen = new IdTimestampGenerator(1);
  let busy = 0;
  let entries = 0;
  const batch = async () => {
    const rows = rowsOf(tenantId, assetId, BATCH);
    fresh.add(rows);
    log.queued = rows.map((r) => r.id);
    const start = performance.now();
    const r = await commitBatch(log, tenantId, gen, 2 * BATCH, fresh, { frontiers });
    busy += performance.now() - start;
    if (r.count !== BATCH) throw new Error(`the commit bench committed ${r.count} of ${BATCH}`);
    if (r.frontier) frontiers.remember(tenantId, r.frontier);
    return r.count;
  };
  const warmEnd = performance.now() + Math.min(200, ms / 4);
  while (performance.now() < warmEnd) await batch();
  busy = 0;
  while (busy < ms) entries += await batch();
  return (entries * 1000) / busy;
}
