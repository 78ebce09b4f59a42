import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import type { Db, Queryable } from "../db.js";
import { guardTransactions } from "../transaction-scope.js";
import { type DataDirLock, lockDataDir } from "./data-dir-lock.js";

/** Opens (creating if needed) the embedded PostgreSQL in `dir`; `memory://` keeps it in RAM. */
export async function openPglite(dir: string): Promise<Db> {
  let lock: DataDirLock | undefined;
  if (!dir.startsWith("memory://")) {
    mkdirSync(dir, { recursive: true });
    lock = lockDataDir(dir);
  }
  let pg: PGlite;
  try {
    pg = await PGlite.create(dir);
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
  return guardTransactions({
    kind: "pglite",
    query: base.query,
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
  });
}
