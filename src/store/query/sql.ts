import type { Db, Queryable } from "../drivers/db.js";

/** Accumulates a WHERE clause and its parameters; values are always placeholders, never spliced. */
export class Where {
  readonly params: unknown[] = [];
  private readonly parts: string[] = [];
  /**
   * A condition whose cost per row the planner does not see (a jsonpath of many alternatives):
   * a probe with one must be answered by its index (`fewMatches`), never by walking the table.
   */
  indexOnly = false;

  constructor(firstParams: unknown[] = []) {
    this.params.push(...firstParams);
  }

  /** Adds a value and returns its placeholder. */
  p(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** Adds a condition (built with `p`). */
  and(condition: string): this {
    this.parts.push(`(${condition})`);
    return this;
  }

  /** Adds a pre-compiled fragment whose placeholders start at 1, renumbering them. */
  fragment(compile: (firstParam: number) => { sql: string; params: unknown[] }): this {
    const c = compile(this.params.length + 1);
    this.params.push(...c.params);
    if (c.sql.trim()) this.parts.push(`(${c.sql})`);
    return this;
  }

  /** The clause body (`true` when empty). */
  get sql(): string {
    return this.parts.length ? this.parts.join(" and ") : "true";
  }
}

/** The first row a query answers, if any (a look-up by key answers one or none). */
export async function firstRow<R>(db: Queryable, sql: string, params: unknown[]): Promise<R | undefined> {
  return (await db.query<R>(sql, params))[0];
}

/** The one numeric column `column` of a query's rows, as numbers (bigint columns come back as text). */
export async function numbersOf(
  db: Queryable,
  column: string,
  sql: string,
  params: unknown[],
): Promise<number[]> {
  const rows = await db.query<Record<string, unknown>>(sql, params);
  return rows.map((r) => Number(r[column]));
}

/** Rows of `table` matching `where`, stopping at `cap` when given (cheap detection of the 206 result limit). */
export async function countWhere(
  db: Queryable,
  table: string,
  where: string,
  params: unknown[],
  cap?: number,
): Promise<number> {
  const sql = cap
    ? `select count(*)::int as n from (select 1 from ${table} where ${where} limit ${Math.floor(cap)}) c`
    : `select count(*)::int as n from ${table} where ${where}`;
  return (await db.query<{ n: number }>(sql, params))[0]?.n ?? 0;
}

/** The planner's row estimate for `where` on `table`: an approximate total at index-lookup cost. */
export async function estimateWhere(
  db: Queryable,
  table: string,
  where: string,
  params: unknown[],
): Promise<number> {
  const rows = await db.query<{ "QUERY PLAN": Array<{ Plan: { "Plan Rows": number } }> | string }>(
    `explain (format json) select 1 from ${table} where ${where}`,
    params,
  );
  const plan = rows[0]?.["QUERY PLAN"];
  const parsed =
    typeof plan === "string" ? (JSON.parse(plan) as Array<{ Plan: { "Plan Rows": number } }>) : plan;
  return Math.round(parsed?.[0]?.Plan["Plan Rows"] ?? 0);
}

/**
 * The `seq`s of every row of `table` matching `where` when there are at most `cap`, else
 * undefined. Asked without an order, the planner finds matches the cheapest way: the
 * attribute index for a rare value, a scan that stops early for a common one. A page query
 * ordered by `seq` cannot be trusted with a rare value: its estimate for containments is a
 * guess, and when it guesses wrong it walks the table by `seq` or by tenancy looking for
 * matches (every row, when there are none; 8-20 ms at 30,000 assets).
 *
 * `indexOnly`: the planner prices a jsonpath test like any operator, one cheap call per row,
 * where one of many alternatives costs ~10 µs a row; so it walked the table for a conserver's
 * group look-up (40-100 subjects) rather than pay the index's cost per value: 5-100 ms a probe
 * at 500-20,000 assets, where the index answers in under 1 ms. Table walks are then switched
 * off for the one statement (`noTableWalk`: on PostgreSQL a connection opened so, one round trip).
 */
export async function fewMatches(
  db: Db,
  table: string,
  where: Where,
  cap: number,
): Promise<string[] | undefined> {
  const sql = `select seq from ${table} where ${where.sql} limit ${Math.floor(cap) + 1}`;
  const rows = await db.query<{ seq: string | number }>(
    sql,
    where.params,
    where.indexOnly ? { noTableWalk: true } : undefined,
  );
  return rows.length > cap ? undefined : rows.map((r) => String(r.seq));
}

/**
 * Runs `fn` with the planner held to walking an index in the order asked for: a page of a whole
 * tenancy's list (newest first, no value filter) is the first rows of the (tenancy, seq) index
 * that pass its filters, and a capped count stops at its cap. On the statistics of a table that
 * grew since its last analyse (a live service's between autovacuum's visits, and PGlite's always:
 * it runs no autovacuum) the planner took the tenancy for a few dozen rows and read all of them
 * through a bitmap, testing every row's derived status, then sorted them for the page (issue 59:
 * 36,528 buffers for a page of 5 at 18,000 records, 5,076 at 900). Not for a list by a rare value,
 * whose own index and a sort of its few matches are the cheaper plan (`narrowedSource` pins those).
 */
export function inIndexOrder<T>(db: Queryable, fn: (q: Queryable) => Promise<T>): Promise<T> {
  return fn({
    query: (sql, params, opts) => db.query(sql, params, { ...opts, indexOrder: true }),
  });
}

/**
 * The FROM item of a list over `table` pinned to the rows whose `seq` is in the array
 * parameter `seqsParam`: fenced (`offset 0`) so that the planner fetches those rows by `seq`
 * before it applies anything else, and named like the table so the list's WHERE reads the same.
 */
export function pinnedSource(table: string, seqsParam: string): string {
  return `(select * from ${table} where seq = any(${seqsParam}::bigint[]) offset 0) ${table}`;
}
