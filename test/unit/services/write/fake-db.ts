import type { Db, Queryable } from "../../../../src/store/drivers/db.js";

/** A database of `kind` whose queries answer nothing and whose transactions just run their function. */
export function fakeDb(kind: Db["kind"]): Db {
  const tx: Queryable = { query: async () => [] };
  return {
    kind,
    query: async () => [],
    transaction: async (fn) => fn(tx),
    ping: async () => undefined,
    close: async () => undefined,
  };
}
