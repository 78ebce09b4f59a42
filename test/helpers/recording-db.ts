import type { Queryable, QueryOptions } from "../../src/store/drivers/db.js";

/** A statement as a store function sent it. */
export interface RecordedStatement {
  sql: string;
  params: readonly unknown[];
  opts: QueryOptions | undefined;
}

/** A handle that records the statements it is given and finds no rows. */
export function recordingDb(): { db: Queryable; seen: RecordedStatement[] } {
  const seen: RecordedStatement[] = [];
  const db: Queryable = {
    query: async <R>(sql: string, params: readonly unknown[] = [], opts?: QueryOptions) => {
      seen.push({ sql, params, opts });
      return [] as R[];
    },
  };
  return { db, seen };
}
