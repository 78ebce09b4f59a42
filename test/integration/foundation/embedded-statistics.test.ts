import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { staleTables } from "../../../src/store/drivers/statistics.js";
import { testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { createAsset, postEvent } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";

/*
 * PGlite runs no autovacuum: the service analyses the tables its writes grew
 * (`ARCHIVIST_STATISTICS_INTERVAL_MS`, store/drivers/statistics.ts), so a long-lived embedded service
 * plans with statistics as a PostgreSQL one does (there, autovacuum's work: the worker runs on
 * PGlite only).
 */
const reltuples = async (s: TestService, table: string) =>
  (
    await s.service.ctx.db.query<{ n: number }>(
      "select reltuples::float8 as n from pg_class where relname = $1",
      [table],
    )
  )[0]?.n;

async function writeSome(s: TestService): Promise<void> {
  const token = await s.token(s.a);
  const asset = await createAsset(s, token, { arc_display_type: "statistics" });
  for (let i = 0; i < 40; i++) {
    const r = await postEvent(s, token, asset.identity, {
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { i: String(i) },
    });
    expect(r.status).toBe(200);
  }
}

describe("the embedded engine's statistics", () => {
  let on: TestService;
  let off: TestService;
  beforeAll(async () => {
    on = await startTestService({ ARCHIVIST_STATISTICS_INTERVAL_MS: "200" });
    off = await startTestService({ ARCHIVIST_STATISTICS_INTERVAL_MS: "0" });
  });
  afterAll(async () => {
    await on?.stop();
    await off?.stop();
  });

  it.runIf(testEngine() === "pglite")("are made by the service for the tables its writes grew", async () => {
    await writeSome(on);
    // Once the writes stop, no table is stale (store/drivers/statistics.ts), and the records' table is analysed.
    await until(async () => ((await staleTables(on.service.ctx.db)).length === 0 ? true : undefined), 30_000);
    expect(await reltuples(on, "asset_events")).toBeGreaterThan(0);
  });

  it("are left alone when switched off", async () => {
    await writeSome(off);
    // The other service's worker ticks every 200 ms: a second of ticks would have analysed it.
    // (41 rows: under PostgreSQL autovacuum's threshold of 50, so it does not either.)
    await new Promise((r) => setTimeout(r, 1000));
    expect(await reltuples(off, "asset_events")).toBe(-1);
  });
});
