import type { Queryable } from "../drivers/db.js";
import { countWhere, type Where } from "./sql.js";

/** One filtered collection: keyset pages in `seq` order, and the exact number of its rows. */
export interface RowSource<R> {
  page(after: number, limit: number): Promise<R[]>;
  count(): Promise<number>;
}

/**
 * The rows of `from` (a table, or a join) matching `where`. Pages and counts share the one
 * filter, so a count can never include a row that no page would show.
 */
export function keysetSource<R>(
  db: Queryable,
  from: string,
  columns: string,
  where: Where,
  seq = "seq",
): RowSource<R> {
  return {
    page: (after, limit) => {
      const n = where.params.length;
      return db.query<R>(
        `select ${columns} from ${from} where ${where.sql} and ${seq} > $${n + 1} order by ${seq} limit $${n + 2}`,
        [...where.params, after, limit],
      );
    },
    count: () => countWhere(db, from, where.sql, where.params),
  };
}

/** `column = any(values)` when any values are given (a filter key repeated means any of them). */
export function anyOf(w: Where, column: string, values: readonly string[] | undefined): Where {
  if (values?.length) w.and(`${column} = any(${w.p(values)}::text[])`);
  return w;
}

/** A collection with no rows (a caller for whom the collection cannot hold anything). */
export function emptySource<R>(): RowSource<R> {
  return { page: async () => [], count: async () => 0 };
}
