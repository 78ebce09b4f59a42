import type { Logger } from "pino";
import type { Db } from "../store/drivers/db.js";
import { analyzeStale } from "../store/drivers/statistics.js";

/**
 * The embedded engine's stand-in for autovacuum's analyses (store/drivers/statistics.ts): the periodic
 * tick of `ARCHIVIST_STATISTICS_INTERVAL_MS`, on PGlite only. What it analysed is logged, so an
 * operator sees the plans' statistics change.
 */
export async function refreshStatistics(db: Db, log: Logger): Promise<void> {
  const started = performance.now();
  const tables = await analyzeStale(db);
  if (tables.length)
    log.info({ tables, ms: Math.round(performance.now() - started) }, "analysed the tables that grew");
}
