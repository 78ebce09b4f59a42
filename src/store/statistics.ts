import type { Queryable } from "./db.js";

/**
 * The planner's statistics on the embedded engine. PostgreSQL's autovacuum analyses a table
 * once enough of it changed; PGlite runs no autovacuum and does not count changes
 * (`pg_stat_user_tables` stays at zero), so a table written through the service is never
 * analysed, and at a million records its plans are those of an empty table (a list page 2.1 s,
 * a statement look-up 0.45 s, against milliseconds once analysed: docs/performance.md).
 *
 * Growth is read from the files, which PGlite keeps exact: a table whose pages grew past its
 * last analysis by autovacuum's proportion (10 %) and a floor, or that was never analysed and
 * holds anything, is stale. ANALYZE samples a bounded number of rows (300 × the statistics
 * target), so a pass costs about the same at any size.
 */
const STALE = `
  select c.relname as name
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where c.relkind = 'r' and n.nspname = current_schema()
     and pg_relation_size(c.oid) > 0
     and (c.reltuples < 0
          or pg_relation_size(c.oid) / current_setting('block_size')::int > c.relpages * 1.1 + $1)
   order by c.relname`;

/** Pages a table may grow past its last analysis before it is analysed again, whatever its size. */
const FLOOR_PAGES = 16;

/** The tables of the service's schema whose statistics are stale (above). */
export async function staleTables(q: Queryable): Promise<string[]> {
  const rows = await q.query<{ name: string }>(STALE, [FLOOR_PAGES]);
  return rows.map((r) => r.name);
}

/** Analyses the stale tables, one statement each (the engine serves requests between them). */
export async function analyzeStale(q: Queryable): Promise<string[]> {
  const stale = await staleTables(q);
  for (const name of stale) await q.query(`analyze "${name.replaceAll('"', '""')}"`);
  return stale;
}
