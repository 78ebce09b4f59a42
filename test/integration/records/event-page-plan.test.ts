import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../../src/store/drivers/db.js";
import { migrate } from "../../../src/store/drivers/migrate.js";
import { insertAssetEvents } from "../../../src/store/records/asset-event-writes.js";
import { selectAssetEvents } from "../../../src/store/records/asset-events.js";
import { assetEventRow } from "../../helpers/asset-event-row.js";
import { bareTestDb, testEngine } from "../../helpers/databases.js";
import { recordingDb } from "../../helpers/recording-db.js";

/** The statement and parameters `selectAssetEvents` sends, without running it. */
async function statementOf(where: string, params: unknown[], opts: Parameters<typeof selectAssetEvents>[3]) {
  const { db, seen } = recordingDb();
  await selectAssetEvents(db, where, params, opts);
  const [sent] = seen;
  if (!sent) throw new Error("no statement");
  return sent;
}

/**
 * One asset's page is the list whose plan PostgreSQL keeps (`reusePlan`): the plan made without
 * the values must still seek to the page through (asset_id, seq), or a page deep in a large
 * asset reads every newer event of it (issue 35: 200,001 rows, 62 ms, against 0.19 ms).
 */
describe(`one asset's page of events, planned without its values (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  const tenant = randomUUID();
  const asset = randomUUID();
  beforeAll(async () => {
    ({ db, close } = await bareTestDb("event-page-plan"));
    await migrate(db);
    await insertAssetEvents(
      db,
      Array.from({ length: 20 }, () => assetEventRow(tenant, asset)),
    );
  });
  afterAll(async () => close?.());

  /** The plan PostgreSQL keeps for the statement: made without its values. */
  async function genericPlan(sql: string, params: readonly unknown[]): Promise<string> {
    return db.transaction(async (tx) => {
      await tx.query("set local plan_cache_mode = force_generic_plan");
      await tx.query("set local enable_seqscan = off");
      await tx.query(`prepare page_plan as ${sql}`);
      const args = params.map((p) => (typeof p === "string" ? `'${p}'` : String(p))).join(", ");
      const rows = await tx.query<Record<string, string>>(`explain execute page_plan(${args})`);
      await tx.query("deallocate page_plan");
      return rows.map((r) => Object.values(r)[0]).join("\n");
    });
  }

  it("bounds every page newest first by seq in the index condition, the first page too", async () => {
    for (const cursor of [0, 10]) {
      const s = await statementOf("asset_id = $1", [asset], {
        cursor,
        limit: 5,
        ascending: false,
        reusePlan: true,
      });
      const plan = await genericPlan(s.sql, s.params);
      expect(plan).toMatch(/Index Cond: \(\(asset_id = \$1\) AND \(seq < \$2\)\)/);
      expect(plan).not.toMatch(/Filter: .*seq < /);
    }
  });

  it("reads the same rows as the cursor says: the first page is the newest, a later one continues it", async () => {
    const first = await selectAssetEvents(db, "asset_id = $1", [asset], {
      cursor: 0,
      limit: 5,
      ascending: false,
      reusePlan: true,
    });
    const last = first.at(-1)?.seq;
    expect(first).toHaveLength(5);
    const next = await selectAssetEvents(db, "asset_id = $1", [asset], {
      cursor: Number(last),
      limit: 5,
      ascending: false,
      reusePlan: true,
    });
    const seqs = [...first, ...next].map((r) => Number(r.seq));
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(new Set(seqs).size).toBe(10);
    expect(Math.max(...next.map((r) => Number(r.seq)))).toBeLessThan(Number(last));
  });
});
