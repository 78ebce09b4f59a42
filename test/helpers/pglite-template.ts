import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { migrate } from "../../src/store/drivers/migrate.js";
import { openPglite } from "../../src/store/drivers/pglite.js";

// A PGlite database's first start runs initdb in WebAssembly, then every migration: 3 s of CPU on
// a quiet machine and 10–15 s when the suite loads both cores, once for each of the few hundred
// services the integration tests start. Those tests are about the service, not about initdb, so
// they start on a copy of one migrated, empty data directory (about 0.5 s). The tests that are
// about a first start (restart-as-users-do, the README's commands, migrations and upgrades) do not
// call this, and `ARCHIVIST_TEST_PGLITE_TEMPLATE=off` turns it off everywhere.

const DRIVERS = fileURLToPath(new URL("../../src/store/drivers/", import.meta.url));

/** The schema's fingerprint: the migrations' sources, the runner's and PGlite's version. */
function schemaKey(): string {
  const h = createHash("sha256");
  const migrations = join(DRIVERS, "migrations");
  for (const f of readdirSync(migrations).sort()) h.update(f).update(readFileSync(join(migrations, f)));
  h.update(readFileSync(join(DRIVERS, "migrate.ts")));
  // The installed PGlite (its package.json is not among its exports): another version's files may not open.
  h.update(readFileSync(new URL("../../node_modules/@electric-sql/pglite/package.json", import.meta.url)));
  return h.digest("hex").slice(0, 16);
}

let made: Promise<string> | undefined;

/**
 * The migrated template for this schema, made once per machine: built in a folder of its own and
 * renamed into place, so workers racing to make it each end with a whole one.
 */
function template(): Promise<string> {
  made ??= (async () => {
    const dir = join(tmpdir(), `archivist-pglite-template-${schemaKey()}`);
    if (existsSync(dir)) return dir;
    const building = mkdtempSync(`${dir}-building-`);
    const db = await openPglite(join(building, "pgdata"));
    await migrate(db);
    await db.close();
    try {
      renameSync(building, dir);
    } catch {
      // Another worker renamed its copy first: the same schema, so use that one.
      rmSync(building, { recursive: true, force: true });
    }
    return dir;
  })();
  return made;
}

/**
 * Gives `dataDir` (a service's DATA_DIR, not yet started) a migrated, empty PGlite database, unless
 * it already holds one or the template is turned off.
 */
export async function seedPglite(dataDir: string): Promise<void> {
  if (process.env.ARCHIVIST_TEST_PGLITE_TEMPLATE === "off") return;
  const target = join(dataDir, "pgdata");
  if (existsSync(target)) return;
  cpSync(join(await template(), "pgdata"), target, { recursive: true });
}
