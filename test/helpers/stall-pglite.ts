// Preloaded (`node --import`) into a child service by the lifecycle tests: while the file named
// by ARCHIVIST_TEST_STALL_FILE exists, every new PGlite statement, transaction and ping waits for
// ever, as behind a statement that never ends. What is already running is left to finish.
import { existsSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";

const flag = process.env.ARCHIVIST_TEST_STALL_FILE;
if (flag) {
  const proto = PGlite.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of ["query", "exec", "transaction"]) {
    const original = proto[name];
    if (typeof original !== "function") throw new Error(`PGlite has no ${name} to stall`);
    proto[name] = function (this: unknown, ...args: unknown[]) {
      return existsSync(flag) ? new Promise(() => undefined) : original.apply(this, args);
    };
  }
}
