import pg from "pg";
import type { Db, Queryable, QueryOptions } from "./db.js";
import { guardTransactions } from "./transaction-scope.js";

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

/**
 * The query to send for `sql`: named (prepared once per connection) when it may reuse its plan.
 * Made from the text, not from a config object, which node-postgres copies property descriptor by
 * descriptor (~1 % of a profile's samples under ingest, though `pair` told no difference); the name
 * is set on the query made from the text.
 */
function namedStatements() {
  const names = new Map<string, string>();
  return (sql: string, params: readonly unknown[], opts: QueryOptions | undefined): pg.Query => {
    const query = new pg.Query(sql, params as unknown[]);
    if (!opts?.reusePlan) return query;
    let name = names.get(sql);
    if (name === undefined) {
      if (names.size >= MAX_NAMED) return query;
      name = `archivist_${names.size}`;
      names.set(sql, name);
    }
    (query as pg.Query & { name?: string }).name = name;
    return query;
  };
}

/** Sends a query on a client and resolves its rows (a query object carries its own callback). */
function send<R>(client: pg.ClientBase, query: pg.Query): Promise<R[]> {
  return new Promise((resolve, reject) => {
    const q = query as pg.Query & { callback?: (err: Error | null, result?: pg.QueryResult) => void };
    q.callback = (err, result) => (err ? reject(err) : resolve((result as pg.QueryResult).rows as R[]));
    client.query(query);
  });
}

/**
 * A client of `from` for `fn`, back to the pool after it; one whose connection failed meanwhile is
 * released with the failure, which makes the pool drop it. The listener also keeps the failure
 * from being an unheard 'error' event, which would end the process.
 */
async function withClient<T>(from: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await from.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  client.on("error", onError);
  try {
    return await fn(client);
  } finally {
    client.removeListener("error", onError);
    client.release(broken);
  }
}

/**
 * Connects a pool to PostgreSQL at `url`; `guard`: refuse the handle inside its own transactions
 * (store/drivers/transaction-scope.ts); `connectTimeoutMs`: give up a connection not made by then (a
 * replica's, which the primary can stand in for; the primary's own waits, having no stand-in).
 */
export async function openPostgres(url: string, max = 16, guard = true, connectTimeoutMs = 0): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: connectTimeoutMs });
  pool.on("error", () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  // Statements held to an index walk (`indexOrder`) or kept from table walks (`noTableWalk`) run
  // on connections of their own, opened with the planner settings: `set local` in a transaction
  // cost each of them three more round trips (BEGIN, SET, COMMIT), which the conserver's grouped
  // look-ups paid on every group (issue 59). JIT is off on them: a plan step the settings switch
  // off but cannot avoid (the `logs` table of a backlog probe has no index to read it by) is
  // priced at 10^10, far past every JIT threshold, and compiling the backlog probe's plan took
  // ~200 ms where running it took 3 (issue 59: the conserver bench's poll for STORED events).
  const held = new Map<string, pg.Pool>();
  const heldPool = (options: string) => {
    let p = held.get(options);
    if (!p) {
      p = new pg.Pool({
        connectionString: url,
        max: Math.max(2, Math.ceil(max / 4)),
        connectionTimeoutMillis: connectTimeoutMs,
        options,
      });
      p.on("error", () => undefined);
      held.set(options, p);
    }
    return p;
  };
  const poolFor = (opts: QueryOptions | undefined): pg.Pool =>
    opts?.indexOrder
      ? heldPool("-c enable_bitmapscan=off -c enable_sort=off -c jit=off")
      : opts?.noTableWalk
        ? heldPool("-c enable_seqscan=off -c jit=off")
        : pool;
  const statement = namedStatements();
  const run = <R>(
    client: pg.PoolClient | undefined,
    sql: string,
    params: readonly unknown[] = [],
    opts?: QueryOptions,
  ): Promise<R[]> => {
    const query = statement(sql, params, opts);
    if (client) return send<R>(client, query);
    return withClient(poolFor(opts), (c) => send<R>(c, query));
  };
  await run(undefined, "select 1");
  return guardTransactions(
    {
      kind: "postgres",
      query: (sql, params, opts) => run(undefined, sql, params, opts),
      transaction: (fn) =>
        withClient(pool, async (client) => {
          const tx: Queryable = { query: (sql, params, opts) => run(client, sql, params, opts) };
          try {
            await run(client, "BEGIN");
            const result = await fn(tx);
            await run(client, "COMMIT");
            return result;
          } catch (err) {
            await run(client, "ROLLBACK").catch(() => undefined);
            throw err;
          }
        }),
      async ping() {
        await run(undefined, "select 1");
      },
      close: async () => {
        await Promise.all([pool.end(), ...[...held.values()].map((p) => p.end())]);
      },
    },
    guard,
  );
}
