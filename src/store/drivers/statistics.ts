import type { Db, Queryable } from "./db.js";

/**
 * The planner's statistics on the embedded engine. PostgreSQL's autovacuum analyses a table
 * once enough of it changed; PGlite runs no autovacuum and does not count changes
 * (`pg_stat_user_tables` stays at zero), so a table written through the service is never
 * analysed, and at a million records its plans are those of an empty table (a list page 2.1 s,
 * a statement look-up 0.45 s, against milliseconds once analysed: docs/performance.md).
 *
 * Growth is read from the files, which PGlite keeps exact: a table whose pages grew past its
 * last analysis by autovacuum's proportion (10 %) and a floor, or that was never analysed and
 * holds anything, is stale.
 *
 * PGlite runs in the service's own thread, so each ANALYZE stalls every request for as long as it
 * runs. ANALYZE samples 300 × the statistics target rows: at the default (100), 30,000 rows of
 * the records' table with their JSON attributes took 0.6–2 s on a busy two-core guest, and writes
 * overlapping a pass waited that long (p99 2.2–2.6 s against 0.1 s outside one; 0.1–0.2 s since:
 * bench/statistics-stall.ts). An analysis costs about what its sample holds in values, rows times
 * columns (3,000 rows of the records' 23 columns about as much as 20,000 of the MMR nodes' 3), so
 * a table's sample is bounded in values (`SAMPLE_VALUES`): a big table is analysed at a lower
 * target (down to `MIN_TARGET`), its estimates a little coarser, as on a PostgreSQL with that
 * target, and a table with more columns than that sample holds in a few statements of some
 * columns each. Between two statements the pass waits `YIELD_MS`, so that requests half-way
 * through their own finish before the next.
 */
const STALE = `
  select c.relname as name, pg_relation_size(c.oid) as bytes,
         c.relpages::bigint * current_setting('block_size')::int as analysed_bytes, c.reltuples,
         array(select a.attname::text from pg_attribute a
                where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as columns
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where c.relkind = 'r' and n.nspname = current_schema()
     and pg_relation_size(c.oid) > 0
     and (c.reltuples < 0
          or pg_relation_size(c.oid) / current_setting('block_size')::int > c.relpages * 1.1 + $1)
   order by c.relname`;

/** Pages a table may grow past its last analysis before it is analysed again, whatever its size. */
const FLOOR_PAGES = 16;

/**
 * The values (rows × columns) one statement may sample: 20–40 ms of the engine's time on a two-core guest.
 * A write that arrives during a statement waits for it, so this bounds what a pass adds to a write: at
 * 30,000 (50–100 ms) writes overlapping a pass had 2.1–3.2× the p99 of the others at two writers
 * on a loaded machine; at 10,000, 1.4–1.7× (1.59–1.99× quiet; bench/statistics-stall.ts,
 * CONCURRENCY=2, issue 71). Below it (5,000) passes only grew longer: each statement samples its
 * rows anew, and that, more than the values, is what a statement costs.
 */
const SAMPLE_VALUES = 10_000;

/** A table never analysed is taken for a big one past this size: its rows are not known yet. */
const UNKNOWN_BYTES = 1 << 20;

/** The engine's default statistics target, and the least a big table is analysed at (3,000 rows). */
const DEFAULT_TARGET = 100;
const MIN_TARGET = 10;

/** The pause between two tables' analyses. */
const YIELD_MS = 100;

interface StaleTable {
  name: string;
  bytes: number;
  /** Its size and rows when last analysed (rows -1: never). */
  analysedBytes: number;
  reltuples: number;
  columns: string[];
}

/** int8 and float4 come back as strings or numbers depending on the driver. */
type Num = number | string;

async function stale(q: Queryable): Promise<StaleTable[]> {
  const rows = await q.query<{
    name: string;
    bytes: Num;
    analysed_bytes: Num;
    reltuples: Num;
    columns: string[];
  }>(STALE, [FLOOR_PAGES]);
  return rows.map((r) => ({
    name: r.name,
    bytes: Number(r.bytes),
    analysedBytes: Number(r.analysed_bytes),
    reltuples: Number(r.reltuples),
    columns: r.columns,
  }));
}

/**
 * How a table is analysed within `SAMPLE_VALUES`: the statistics target, and the columns of each
 * statement (one statement of all of them, unless its sample would hold more). The default
 * target for a table whose rows (as last analysed, grown with its size since) hold fewer values;
 * the least for a big one never analysed (the next pass, a tenth bigger, knows its rows).
 */
export function samplePlan(t: Omit<StaleTable, "name">): { target: number; columns: string[][] } {
  const n = Math.max(1, t.columns.length);
  const rows =
    t.reltuples >= 0 && t.analysedBytes > 0 ? (t.reltuples * t.bytes) / t.analysedBytes : undefined;
  const target = targetOf(rows, t.bytes, n);
  // A small table never analysed holds a megabyte at most: one statement reads it whole.
  if (rows === undefined && target === DEFAULT_TARGET) return { target, columns: [t.columns] };
  const statements = Math.ceil(
    (Math.min(rows ?? Number.POSITIVE_INFINITY, 300 * target) * n) / SAMPLE_VALUES,
  );
  if (statements <= 1) return { target, columns: [t.columns] };
  // Evenly: the statements' sizes differ by one column at most.
  const parts = Math.min(n, statements);
  const at = (i: number) => Math.round((i * n) / parts);
  return { target, columns: Array.from({ length: parts }, (_, i) => t.columns.slice(at(i), at(i + 1))) };
}

function targetOf(rows: number | undefined, bytes: number, columns: number): number {
  if (rows === undefined) return bytes <= UNKNOWN_BYTES ? DEFAULT_TARGET : MIN_TARGET;
  if (rows * columns <= SAMPLE_VALUES) return DEFAULT_TARGET;
  return Math.max(MIN_TARGET, Math.min(DEFAULT_TARGET, Math.floor(SAMPLE_VALUES / (300 * columns))));
}

/** The tables of the service's schema whose statistics are stale (above). */
export async function staleTables(q: Queryable): Promise<string[]> {
  return (await stale(q)).map((t) => t.name);
}

/** Analyses the stale tables, each in statements of a bounded sample (above). */
export async function analyzeStale(db: Pick<Db, "query" | "transaction">): Promise<string[]> {
  const tables = await stale(db);
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  let first = true;
  for (const table of tables) {
    const { target, columns } = samplePlan(table);
    for (const some of columns) {
      if (!first) await new Promise((resolve) => setTimeout(resolve, YIELD_MS));
      first = false;
      const analyze =
        columns.length === 1
          ? `analyze ${quote(table.name)}`
          : `analyze ${quote(table.name)} (${some.map(quote).join(", ")})`;
      if (target === DEFAULT_TARGET) {
        await db.query(analyze);
        continue;
      }
      // `set local`: the engine's one session serves every request, which must not inherit it.
      await db.transaction(async (tx) => {
        await tx.query(`set local default_statistics_target = ${target}`);
        await tx.query(analyze);
      });
    }
  }
  return tables.map((t) => t.name);
}
