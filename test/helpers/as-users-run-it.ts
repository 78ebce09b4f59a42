import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { type ChildService, startChild } from "./child-service.js";
import { freshPostgresDatabase, testEngine } from "./databases.js";

/**
 * One service for a file's tests, run as `npm start` runs it: `archivist serve` in its own process
 * with no configuration but where its data goes (a temporary data folder; on the postgres project
 * a fresh database, on pglite the data folder's own), no bootstrap file and no Redis, plus
 * `settings`. The service last started is SIGKILLed, the database dropped and the folder removed
 * after the file's tests.
 */
export function serviceAsUsersRunIt(
  label: string,
  settings: Record<string, string>,
): {
  readonly dataDir: string;
  /** The fresh database's URL on the postgres project (once the file's tests run), else undefined. */
  readonly databaseUrl: string | undefined;
  /** Starts the service on `port`, with `more` settings too. */
  start(port: number, more?: Record<string, string>): Promise<ChildService>;
} {
  const dir = mkdtempSync(join(tmpdir(), `archivist-${label}-`));
  const dataDir = join(dir, "data");
  let pg: { url: string; drop(): Promise<void> } | undefined;
  let service: ChildService | undefined;
  beforeAll(async () => {
    pg = testEngine() === "postgres" ? await freshPostgresDatabase() : undefined;
  });
  afterAll(async () => {
    await service?.kill("SIGKILL");
    await pg?.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dataDir,
    get databaseUrl() {
      return pg?.url;
    },
    async start(port, more = {}) {
      const env = {
        DATA_DIR: dataDir,
        DATABASE_URL: pg?.url ?? "",
        ARCHIVIST_BOOTSTRAP_FILE: "",
        REDIS_URL: "",
        ...settings,
        ...more,
      };
      // A loaded machine (the whole suite on two cores) can take long to compile and start it.
      service = await startChild("serve", env, port, 120_000);
      return service;
    },
  };
}
