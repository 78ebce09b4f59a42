import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import postgresDriver from "pg";
import { type DataDirLock, lockDataDir } from "./data-dir-lock.js";
import type { Db, Queryable } from "./db.js";
import { sqlTime } from "./sql-time.js";
import { guardTransactions } from "./transaction-scope.js";

/**
 * Times are read as the PostgreSQL driver reads them. PGlite's own parser hands PostgreSQL's text
 * (`0001-01-01 00:00:00+00`) to `new Date`, whose legacy parsing reads years below 100 as 19xx or
 * 20xx: a declared time of the year 1 came back as 2001 on the embedded default only.
 */
const TIME_PARSERS = {
  [postgresDriver.types.builtins.TIMESTAMPTZ]: postgresDriver.types.getTypeParser(
    postgresDriver.types.builtins.TIMESTAMPTZ,
    "text",
  ),
};

/**
 * Times are written as PostgreSQL reads them: PGlite wrote a Date with `toISOString`, whose sign
 * before a year past 9999 PostgreSQL refused (`at_time=+012000-…` was a fault on the embedded
 * default only).
 */
const TIME_SERIALIZERS = {
  [postgresDriver.types.builtins.TIMESTAMPTZ]: (v: unknown) => (v instanceof Date ? sqlTime(v) : String(v)),
};

/**
 * Opens (creating if needed) the embedded PostgreSQL in `dir`; `memory://` keeps it in RAM.
 * `guard`: refuse the handle inside its own transactions (store/drivers/transaction-scope.ts).
 */
export async function openPglite(dir: string, guard = true): Promise<Db> {
  let lock: DataDirLock | undefined;
  if (!dir.startsWith("memory://")) {
    mkdirSync(dir, { recursive: true });
    lock = lockDataDir(dir);
  }
  let pg: PGlite;
  try {
    pg = await PGlite.create(dir, { parsers: TIME_PARSERS, serializers: TIME_SERIALIZERS });
  } catch (err) {
    lock?.release();
    throw err;
  }
  const wrap = (q: Pick<PGlite, "query">): Queryable => ({
    async query<R>(sql: string, params: readonly unknown[] = []) {
      const result = await q.query<R>(sql, params as unknown[]);
      return result.rows;
    },
  });
  const base = wrap(pg);
  return guardTransactions(
    {
      kind: "pglite",
      query: (sql, params, opts) =>
        opts?.indexOrder
          ? pg.transaction(async (tx) => {
              await tx.query("set local enable_bitmapscan = off");
              await tx.query("set local enable_sort = off");
              return wrap(tx).query(sql, params);
            })
          : opts?.noTableWalk
            ? pg.transaction(async (tx) => {
                await tx.query("set local enable_seqscan = off");
                return wrap(tx).query(sql, params);
              })
            : base.query(sql, params),
      transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
      async ping() {
        await pg.query("select 1");
      },
      async close() {
        try {
          await pg.close();
        } finally {
          lock?.release();
        }
      },
    },
    guard,
  );
}
