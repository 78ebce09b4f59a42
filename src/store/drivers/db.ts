import { CodedError } from "../../formats/coded-error.js";
/** How a statement may be run. */
export interface QueryOptions {
  /**
   * The statement's best plan does not depend on its parameter values (a look-up by key), so
   * the driver may prepare it once per connection and reuse the plan. Never for filters on
   * values: a plan made without the values walks tables where the values would use an index.
   */
  reusePlan?: boolean;
  /**
   * The statement reads rows in the order of an index it walks and stops at a limit (a page of a
   * whole tenancy's list, a capped count): the planner is held to that walk, with no bitmap scan
   * and no sort (`inIndexOrder` in sql.ts says why). PostgreSQL runs it on connections opened with
   * those settings, so the hold costs no round trip; PGlite, in a transaction that sets them.
   */
  indexOrder?: boolean;
  /**
   * The statement must be answered through its indexes, never by walking a table (`fewMatches`,
   * the backlog's look-ups in unsettled.ts say why): PostgreSQL runs it on connections opened
   * with table walks off, so the hold costs no round trip; PGlite, in a transaction that sets it.
   */
  noTableWalk?: boolean;
}

/** Anything that runs SQL: the database itself or an open transaction. */
export interface Queryable {
  /** Runs one parameterised statement and returns its rows. */
  query<R = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    opts?: QueryOptions,
  ): Promise<R[]>;
}

/** The storage engine behind the service: PGlite (embedded) or PostgreSQL. */
export interface Db extends Queryable {
  readonly kind: "pglite" | "postgres";
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Liveness probe for `/readyz`. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A storage fault (the only cause of a 500). */
export class StorageError extends CodedError<"STORAGE"> {
  readonly code = "STORAGE";
}
