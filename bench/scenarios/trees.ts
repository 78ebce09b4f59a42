import { randomUUID } from "node:crypto";
import { IdTimestampGenerator } from "../../src/core/log/idtimestamp.js";
import type { Db } from "../../src/store/drivers/db.js";
import { migrate } from "../../src/store/drivers/migrate.js";
import { openPglite } from "../../src/store/drivers/pglite.js";
import { openPostgres } from "../../src/store/drivers/postgres.js";
import { insertAssetEvents, type NewAssetEvent } from "../../src/store/records/asset-event-writes.js";
import { commitBatch } from "../../src/workers/commit-batch.js";
import { freshDatabase } from "../database.js";
import type { Scenario } from "../scenario.js";

const nobody = { issuer: "", subject: "", display_name: "", email: "" };

function rows(tenant: string, asset: string, n: number): NewAssetEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    id: randomUUID(),
    asset_id: asset,
    tenant_id: tenant,
    operation: "Record",
    behaviour: "RecordEvidence",
    event_attributes: { arc_display_type: "vcon_created", payload: "a".repeat(64), n: String(i) },
    asset_attributes: {},
    timestamp_declared: new Date(),
    timestamp_accepted: new Date(),
    principal_declared: nobody,
    principal_accepted: nobody,
    confirmation_status: "STORED",
    proof_mechanism: "MERKLE_LOG",
    public: false,
    from_address: "",
  }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/**
 * `trees`: what the RFC 9162 tree costs the committer. Two logs are fed the same batches; each
 * round commits one batch in each, alternating which goes first, one with both trees (as the
 * service commits) and one with the MMR alone, each in its own transaction on the same database.
 */
export const trees: Scenario = {
  name: "trees",
  async run(ctx) {
    const fresh = ctx.opts.databaseUrl ? await freshDatabase(ctx.opts.databaseUrl) : undefined;
    // The transaction guard as the service opens each engine (store/open.ts): off on PostgreSQL.
    const db: Db = fresh ? await openPostgres(fresh.url, 2, false) : await openPglite("memory://bench-trees");
    try {
      await migrate(db);
      const logs: Array<{ tenant: string; asset: string; tree: boolean; ms: number[] }> = [];
      for (const tree of [true, false]) {
        const tenant = randomUUID();
        const asset = randomUUID();
        await db.query("insert into tenancies (id, display_name) values ($1, 'bench')", [tenant]);
        await db.query("insert into assets (id, tenant_id, proof_mechanism) values ($1, $2, 'MERKLE_LOG')", [
          asset,
          tenant,
        ]);
        logs.push({ tenant, asset, tree, ms: [] });
      }
      const batch = ctx.opts.quick ? 200 : 1000;
      const rounds = ctx.opts.quick ? 4 : 16;
      const gen = new IdTimestampGenerator(9);
      ctx.log(`trees: ${rounds} rounds of ${batch}-entry commits, both trees vs the MMR alone (${db.kind})`);
      for (let r = 0; r < rounds; r++) {
        for (const l of logs) await insertAssetEvents(db, rows(l.tenant, l.asset, batch));
        const order = r % 2 === 0 ? logs : [...logs].reverse();
        for (const l of order) {
          const t0 = performance.now();
          const done = await db.transaction((tx) =>
            commitBatch(tx, l.tenant, gen, batch, undefined, { tree: l.tree }),
          );
          if (done.count !== batch) throw new Error(`committed ${done.count} of ${batch}`);
          if (r > 0) l.ms.push(performance.now() - t0);
        }
      }
      const [both, mmr] = logs.map((l) => median(l.ms)) as [number, number];
      const engine = db.kind === "postgres" ? "PostgreSQL" : "PGlite";
      ctx.results.add("trees", `commit of ${batch} entries, MMR alone (${engine}) p50`, mmr, "ms");
      ctx.results.add("trees", `commit of ${batch} entries, MMR + RFC 9162 (${engine}) p50`, both, "ms");
      ctx.results.add(
        "trees",
        `RFC 9162 tree's cost per committed entry (${engine})`,
        ((both - mmr) * 1000) / batch,
        "µs",
        undefined,
        `both/MMR alone = ${(both / mmr).toFixed(3)}, interleaved rounds`,
      );
    } finally {
      await db.close();
      await fresh?.drop();
    }
  },
};
