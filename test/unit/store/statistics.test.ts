import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import type { Queryable } from "../../../src/store/db.js";
import { analyzeStale, staleTables } from "../../../src/store/statistics.js";

/* The embedded engine's stand-in for autovacuum's analyses: which tables it finds stale, on PGlite. */
const db = new PGlite();
const q: Queryable = {
  query: async <R>(sql: string, params?: readonly unknown[]) =>
    (await db.query<R>(sql, params as unknown[] | undefined)).rows,
};
afterAll(() => db.close());

const fill = (rows: number) =>
  db.exec(`insert into grows select g, repeat('x', 100) from generate_series(1, ${rows}) g`);
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
});
