import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import type { Db, Queryable } from "../../../../src/store/drivers/db.js";
import { analyzeStale, samplePlan, staleTables } from "../../../../src/store/drivers/statistics.js";

/* The embedded engine's stand-in for autovacuum's analyses: which tables it finds stale, on PGlite. */
const db = new PGlite();
const on = (c: Pick<PGlite, "query">): Queryable => ({
  query: async <R>(sql: string, params?: readonly unknown[]) =>
    (await c.query<R>(sql, params as unknown[] | undefined)).rows,
});
const q: Pick<Db, "query" | "transaction"> = {
  ...on(db),
  transaction: (fn) => db.transaction((tx) => fn(on(tx))),
};
afterAll(() => db.close());

const fill = (rows: number) =>
  db.exec(`insert into grows select g, repeat('x', 100) from generate_series(1, ${rows}) g`);
/** A table as the pass reads it (store/drivers/statistics.ts). */
const stale = async (table: string) =>
  (
    await db.query<{ bytes: number; analysedBytes: number; reltuples: number; columns: string[] }>(
      `select pg_relation_size(c.oid)::float8 as bytes, c.relpages * 8192.0 as "analysedBytes", c.reltuples::float8 as reltuples,
              array(select attname::text from pg_attribute where attrelid = c.oid and attnum > 0 and not attisdropped order by attnum) as columns
         from pg_class c where relname = $1`,
      [table],
    )
  ).rows[0];
const stats = async () =>
  (await db.query<{ reltuples: number }>("select reltuples from pg_class where relname = 'grows'")).rows[0]
    ?.reltuples;

describe("the embedded engine's statistics", () => {
  it("finds a table stale when written and never analysed, or grown past its last analysis by a tenth", async () => {
    await db.exec(
      "create table grows (a int, b text); create index on grows (a); create table empty (a int)",
    );
    // Empty tables hold nothing to analyse.
    expect(await staleTables(q)).toEqual([]);
    await fill(20_000);
    expect(await staleTables(q)).toEqual(["grows"]);
    expect(await stats()).toBe(-1);
    expect(await analyzeStale(q)).toEqual(["grows"]);
    expect(await stats()).toBe(20_000);
    expect(await staleTables(q)).toEqual([]);
    // Grown by 5 %: not yet.
    await fill(1_000);
    expect(await staleTables(q)).toEqual([]);
    // By 20 % in all: stale again, and analysed to what the table holds.
    await fill(3_000);
    expect(await staleTables(q)).toEqual(["grows"]);
    await analyzeStale(q);
    expect(await stats()).toBe(24_000);
  });

  it("analyses a big table on a sample of bounded values, a small one on the default, and leaves the engine's session as it was", async () => {
    // Each analysis stalls every request of the process: its sample is bounded in values.
    const columns = Array.from({ length: 8 }, (_, i) => `c${i} int`).join(", ");
    await db.exec(`create table big (a int, b text, ${columns}); create table small (a int)`);
    const fillBig = (from: number, to: number) =>
      db.exec(`insert into big (a, b) select g, repeat('x', 100) from generate_series(${from}, ${to}) g`);
    await fillBig(1, 40_000);
    await db.exec("insert into small select g from generate_series(1, 5000) g");
    const buckets = async (table: string) =>
      (
        await db.query<{ n: number }>(
          "select array_length((histogram_bounds::text)::int[], 1) as n from pg_stats where tablename = $1 and attname = 'a'",
          [table],
        )
      ).rows[0]?.n;
    // Never analysed and past 1 MB: the least target. The histogram has target + 1 bounds.
    expect(await analyzeStale(q)).toEqual(["big", "small"]);
    expect(await buckets("big")).toBe(11);
    expect(await buckets("small")).toBe(101);
    // Grown by a fifth: 30,000 values of its 10 columns, 3,000 rows (a target of 10) in three statements.
    await fillBig(40_001, 48_000);
    expect(samplePlan((await stale("big")) as Parameters<typeof samplePlan>[0])).toEqual({
      target: 10,
      columns: [
        ["a", "b", "c0"],
        ["c1", "c2", "c3", "c4"],
        ["c5", "c6", "c7"],
      ],
    });
    expect(await analyzeStale(q)).toEqual(["big"]);
    expect(await buckets("big")).toBe(11);
    // A table of 30 columns: 3,000 rows of them in nine statements, every column analysed.
    const many = Array.from({ length: 29 }, (_, i) => `w${i}`);
    await db.exec(`create table wide (a int, ${many.map((c) => `${c} int`).join(", ")})`);
    await db.exec(
      `insert into wide select g, ${many.map(() => "g").join(", ")} from generate_series(1, 20000) g`,
    );
    expect(samplePlan((await stale("wide")) as Parameters<typeof samplePlan>[0]).columns.length).toBe(9);
    expect(await analyzeStale(q)).toEqual(["wide"]);
    const analysed = await db.query<{ attname: string; n: number }>(
      "select attname, array_length((histogram_bounds::text)::int[], 1) as n from pg_stats where tablename = 'wide'",
    );
    expect(analysed.rows.length).toBe(30);
    expect(new Set(analysed.rows.map((r) => r.n))).toEqual(new Set([11]));
    expect((await db.query<{ t: string }>("show default_statistics_target")).rows[0]).toEqual({
      default_statistics_target: "100",
    });
  });

  it("bounds a sample in values: the default for a small table, a lower target for a big one, its columns split when still too many", () => {
    const MB = 1 << 20;
    const named = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);
    const table = (columns: number) => ({
      bytes: 100 * MB,
      analysedBytes: 80 * MB,
      reltuples: 800_000,
      columns: named(columns),
    });
    const plan = (t: Parameters<typeof samplePlan>[0]) => {
      const p = samplePlan(t);
      return { target: p.target, columns: p.columns.map((c) => c.length) };
    };
    // Never analysed: a megabyte at most is read whole; past it, the least target.
    expect(plan({ bytes: MB, analysedBytes: 0, reltuples: -1, columns: named(23) })).toEqual({
      target: 100,
      columns: [23],
    });
    expect(plan({ bytes: 2 * MB, analysedBytes: 0, reltuples: -1, columns: named(3) })).toEqual({
      target: 10,
      columns: [3],
    });
    // Rows as last analysed, grown with the table: 400 of 23 columns is 9,200 values, all sampled.
    expect(plan({ bytes: 2 * MB, analysedBytes: MB, reltuples: 200, columns: named(23) })).toEqual({
      target: 100,
      columns: [23],
    });
    // 1,200 of them is 27,600: all sampled at the least target (3,000 rows), in three even statements.
    expect(plan({ bytes: 2 * MB, analysedBytes: MB, reltuples: 600, columns: named(23) })).toEqual({
      target: 10,
      columns: [8, 7, 8],
    });
    // 2,000 of them is 46,000: five statements.
    expect(plan({ bytes: 2 * MB, analysedBytes: MB, reltuples: 1000, columns: named(23) })).toEqual({
      target: 10,
      columns: [5, 4, 5, 4, 5],
    });
    expect(plan(table(1))).toEqual({ target: 33, columns: [1] });
    // The MMR's nodes (3 columns): 10,000 values at a lower target; the log's entries (7) at the least, in three.
    expect(plan(table(3))).toEqual({ target: 11, columns: [3] });
    expect(plan(table(7))).toEqual({ target: 10, columns: [2, 3, 2] });
    // The records (23): 3,000 rows at the least target hold 69,000, so seven statements of the columns.
    expect(plan(table(23))).toEqual({ target: 10, columns: [3, 4, 3, 3, 3, 4, 3] });
    expect(samplePlan(table(23)).columns.flat()).toEqual(named(23));
  });
});
