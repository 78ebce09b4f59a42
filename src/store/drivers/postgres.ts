import pg from "pg";
import type { Db, Queryable, QueryOptions } from "../db.js";
import { guardTransactions } from "../transaction-scope.js";

// int8 and numeric come back as strings by default; ids and sizes we keep in int8
// fit in a double, so parse them (idtimestamps are stored as text, not int8).
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * Statements that may reuse their plan (`reusePlan`) are prepared once per connection under a
 * name of their own, which the pool's `statements` gives out. Planning the asset read with its
 * status subqueries cost PostgreSQL 0.23 ms where running it cost 0.07, on every read of an asset
 * by id. The callers mark only texts that do not vary, and the cap keeps a mistake from growing
 * every connection's prepared statements without bound.
 */
const MAX_NAMED = 100;

/** The statement to send for `sql`: named (prepared once per connection) when it may reuse its plan. */
function namedStatements() {
  const names = new Map<string, string>();
  return (sql: string, params: readonly unknown[], opts: QueryOptions | undefined): pg.QueryConfig => {
    const values = params as unknown[];
    if (!opts?.reusePlan) return { text: sql, values };
    let name = names.get(sql);
    if (name === undefined) {
      if (names.size >= MAX_NAMED) return { text: sql, values };
      name = `archivist_${names.size}`;
      names.set(sql, name);
    }
    return { name, text: sql, values };
  };
}

/**
 * Connects a pool to PostgreSQL at `url`; `guard`: refuse the handle inside its own transactions
 * (store/transaction-scope.ts).
 */
export async function openPostgres(url: string, max = 16, guard = true): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on("error", () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  const statement = namedStatements();
  const run = async <R>(
    client: pg.Pool | pg.PoolClient,
    sql: string,
    params: readonly unknown[] = [],
    opts?: QueryOptions,
  ) => (await client.query(statement(sql, params, opts))).rows as R[];
  await run(pool, "select 1");
  return guardTransactions(
    {
      kind: "postgres",
      query: (sql, params, opts) => run(pool, sql, params, opts),
      async transaction(fn) {
        const client = await pool.connect();
        const tx: Queryable = { query: (sql, params, opts) => run(client, sql, params, opts) };
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
    },
    guard,
  );
}
