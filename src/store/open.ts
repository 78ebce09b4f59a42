import { join } from "node:path";
import type { Db } from "./db.js";
import { openPglite } from "./drivers/pglite.js";
import { openPostgres } from "./drivers/postgres.js";
import { migrate } from "./migrate.js";

/** Opens the configured engine (PostgreSQL when a URL is given, else PGlite in dataDir) and migrates it. */
export async function openDb(opts: { databaseUrl?: string | undefined; dataDir: string }): Promise<Db> {
  const db = opts.databaseUrl
    ? await openPostgres(opts.databaseUrl)
    : await openPglite(opts.dataDir.startsWith("memory://") ? opts.dataDir : join(opts.dataDir, "pgdata"));
  await migrate(db);
  return db;
}
