import pg from "pg";
import type { Db, Queryable } from "../db.js";

// int8 and numeric come back as strings by default; ids and sizes we keep in int8
// fit in a double, so parse them (idtimestamps are stored as text, not int8).
pg.types.setTypeParser(20, (v) => Number(v));

/** Connects a pool to PostgreSQL at `url`. */
export async function openPostgres(url: string, max = 16): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on("error", () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  const run = async <R>(client: pg.Pool | pg.PoolClient, sql: string, params: readonly unknown[] = []) =>
    (await client.query(sql, params as unknown[])).rows as R[];
  await run(pool, "select 1");
  return {
    kind: "postgres",
    query: (sql, params) => run(pool, sql, params),
    async transaction(fn) {
      const client = await pool.connect();
      const tx: Queryable = { query: (sql, params) => run(client, sql, params) };
      try {
        await client.query("BEGIN");
        const result = await fn(tx);
        await client.query("COMMIT");
        return result;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async ping() {
      await run(pool, "select 1");
    },
    close: () => pool.end(),
  };
}
