import { AsyncLocalStorage } from "node:async_hooks";
import { type Db, type Queryable, StorageError } from "./db.js";

/** The transaction whose callback the current async flow runs in, until that callback settles. */
interface Scope {
  db: Db;
  open: boolean;
}

const scope = new AsyncLocalStorage<Scope>();

/**
 * Refuses, loudly, to use `db` itself from inside one of its own transactions. Code running in a
 * transaction's callback that awaits the database handle (or a shared answer being loaded through
 * it) waits for a second connection the transaction may be holding up: PGlite runs one
 * transaction at a time, so it waits for ever (issue 31: the service wedged on its first event
 * after a restart); PostgreSQL waits for a pooled connection, for ever once every connection is
 * held by such a transaction. The dependency must be given the transaction, or be used before it.
 * Other requests' flows are not inside the transaction: their statements wait their turn, as they should.
 */
export function refuseInsideTransaction(db: Queryable, what: string): void {
  const s = scope.getStore();
  if (s?.open && s.db === db)
    throw new StorageError(
      `${what} through the database handle inside one of its transactions: it would wait for a connection the transaction holds (PGlite runs one transaction at a time). Pass the transaction, or do it before the transaction.`,
    );
}

/**
 * The driver's handle, refusing a statement, a transaction or a ping through itself from inside one
 * of its transactions (`refuseInsideTransaction`); statements through the transaction's own handle run.
 * With `enabled` false the handle is `inner` itself: on Node 20 the first `AsyncLocalStorage.run`
 * installs promise hooks that then cost every promise of the process, 5-8 % of the service's CPU
 * per accepted event on PostgreSQL (docs/performance.md, "The transaction guard's price").
 */
export function guardTransactions(inner: Db, enabled = true): Db {
  if (!enabled) return inner;
  const guarded: Db = {
    kind: inner.kind,
    query(sql, params, opts) {
      refuseInsideTransaction(guarded, "a query");
      return inner.query(sql, params, opts);
    },
    async transaction(fn) {
      refuseInsideTransaction(guarded, "a nested transaction");
      return inner.transaction((tx) => {
        const s: Scope = { db: guarded, open: true };
        // Work the callback leaves running (a timer, a promise not awaited) keeps the scope but
        // runs after it has closed: it is no longer inside the transaction.
        return scope
          .run(s, () => fn(tx))
          .finally(() => {
            s.open = false;
          });
      });
    },
    ping() {
      refuseInsideTransaction(guarded, "a ping");
      return inner.ping();
    },
    close: () => inner.close(),
  };
  return guarded;
}
