import { join } from "node:path";
import type { Db } from "./db.js";
import { migrate } from "./migrate.js";
import { openPglite } from "./pglite.js";
import { openPostgres } from "./postgres.js";

/**
 * Opens the configured engine (PostgreSQL when a URL is given, else PGlite in dataDir) and
 * migrates it. `transactionGuard` (store/drivers/transaction-scope.ts) defaults to on for PGlite, where
 * the handle used inside its own transaction wedges the service at once and for ever, and off
 * for PostgreSQL, where such a use waits for another pooled connection and the guard's promise
 * hooks cost every request; the test suites turn it on for both.
 */
export async function openDb(opts: {
  databaseUrl?: string | undefined;
  dataDir: string;
  transactionGuard?: boolean | undefined;
}): Promise<Db> {
  const guard = opts.transactionGuard ?? !opts.databaseUrl;
  const db = opts.databaseUrl
    ? await openPostgres(opts.databaseUrl, undefined, guard)
    : await openPglite(
        opts.dataDir.startsWith("memory://") ? opts.dataDir : join(opts.dataDir, "pgdata"),
        guard,
      );
  await migrate(db);
  return db;
}
