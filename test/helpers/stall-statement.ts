// Preloaded (`node --import`) into a child service by the crash tests: the first statement whose
// text matches ARCHIVIST_TEST_STALL_SQL (a regular expression) never ends, on either engine, and
// ARCHIVIST_TEST_STALL_MARK (a file) is written when it starts, so the test kills the process at
// that very point of its transaction (what ran before it in the transaction is written, not committed).
import { writeFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

const pattern = process.env.ARCHIVIST_TEST_STALL_SQL;
const mark = process.env.ARCHIVIST_TEST_STALL_MARK;
if (pattern && mark) {
  const re = new RegExp(pattern, "i");
  let stalled = false;
  const stalls = (sql: unknown): boolean => {
    if (stalled || typeof sql !== "string" || !re.test(sql)) return false;
    stalled = true;
    writeFileSync(mark, sql);
    return true;
  };
  // PostgreSQL: every statement goes through a pooled client's query (a text, or a pg.Query).
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = client.query;
  client.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0] as { text?: unknown } | string;
    if (stalls(typeof q === "string" ? q : q?.text)) return new Promise(() => undefined);
    return query.apply(this, args);
  };
  // PGlite: statements in a transaction go through the transaction's own handle.
  const proto = PGlite.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const transaction = proto.transaction as (...args: unknown[]) => unknown;
  proto.transaction = function (this: unknown, fn: unknown) {
    return transaction.call(this, (tx: { query: (...a: unknown[]) => unknown }) => {
      const wrapped = new Proxy(tx, {
        get(target, key, receiver) {
          if (key !== "query") return Reflect.get(target, key, receiver);
          return (...a: unknown[]) => (stalls(a[0]) ? new Promise(() => undefined) : target.query(...a));
        },
      });
      return (fn as (t: unknown) => unknown)(wrapped);
    });
  };
}
