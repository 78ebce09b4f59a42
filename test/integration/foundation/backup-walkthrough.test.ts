import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { serviceAsUsersRunIt } from "../../helpers/as-users-run-it.js";
import type { ChildService } from "../../helpers/child-service.js";
import { testEngine } from "../../helpers/databases.js";
import { freePort } from "../../helpers/ports.js";
import { processOutput } from "../../helpers/process-output.js";

// Issue 74: docs/keys.md's backup of the embedded database used a `$BACKUPS` only the PostgreSQL
// block set (run alone it copied to /pgdata-<date>) and a `$PID` no block set, and its restore
// deleted data/pgdata before a copy that then failed. Each block of "Backup and restore" runs here
// on its own, as written, in a fresh bash from a stand-in of the repository's root whose `data/` is
// the service's (as `npm start` has it) and whose `walkthrough/` is the test's own; the engine's
// own blocks on each project. A record written before the backup is there after the restore, an
// application registered after it (not in the log, so no seal tells the restore apart) is not.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const engine = testEngine();
const users = serviceAsUsersRunIt("backup-walkthrough", {
  ARCHIVIST_COMMIT_MAX_DELAY_MS: "50",
  ARCHIVIST_SEAL_INTERVAL_MS: "200",
});
// serviceAsUsersRunIt's folder holds `data/`: it is the stand-in root, the repository's entries linked in.
const stage = dirname(users.dataDir);
for (const entry of readdirSync(root))
  if (!["data", "walkthrough", ".git"].includes(entry)) symlinkSync(join(root, entry), join(stage, entry));
const backups = join(stage, "walkthrough", "backups");
const empty = mkdtempSync(join(tmpdir(), "backup-walkthrough-none-"));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

/** The section's ```sh blocks: the PostgreSQL backup and restore, then the embedded ones. */
function backupBlocks(): { pgBackup: string; pgRestore: string; liteBackup: string; liteRestore: string } {
  const doc = readFileSync(join(root, "docs/keys.md"), "utf8");
  const start = doc.indexOf("\n## Backup and restore\n");
  const section = doc.slice(start, doc.indexOf("\n## ", start + 4));
  const [pgBackup = "", pgRestore = "", liteBackup = "", liteRestore = ""] = [
    ...section.matchAll(/```sh\n([\s\S]*?)```/g),
  ].map((m) => m[1] as string);
  expect(pgBackup).toMatch(/pg_dump/);
  expect(pgRestore).toMatch(/pg_restore/);
  expect(liteBackup).toMatch(/cp -a .*pgdata/);
  expect(liteRestore).toMatch(/pgdata/);
  return { pgBackup, pgRestore, liteBackup, liteRestore };
}

/** One block in a bash of its own that stops at the first failing command, with the reader's settings only. */
async function runBlock(block: string, more: Record<string, string> = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, ...more };
  // Nothing a block reads may come from another block or from the test: only what a reader's
  // shell holds (DATABASE_URL, set for a service on PostgreSQL).
  for (const name of ["BACKUPS", "DATA_DIR", "PID", "DATA", "COPY", "DUMP", "BASE_URL"])
    if (!(name in more)) delete env[name];
  if (engine === "postgres" && !("DATABASE_URL" in more)) env.DATABASE_URL = users.databaseUrl;
  else if (!("DATABASE_URL" in more)) delete env.DATABASE_URL;
  const bash = spawn("bash", ["-c", `set -euo pipefail\n${block}`], {
    cwd: stage,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return processOutput(bash);
}

async function tokenOf(s: ChildService): Promise<string> {
  const creds = JSON.parse(readFileSync(join(users.dataDir, "bootstrap.json"), "utf8")) as {
    client_id: string;
    client_secret: string;
  };
  const res = await fetch(`${s.url}/archivist/iam/v1/appidp/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "client_credentials", ...creds }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function call(
  s: ChildService,
  path: string,
  body?: unknown,
): Promise<{ status: number; identity: string }> {
  const res = await fetch(`${s.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${await tokenOf(s)}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json().catch(() => ({}))) as { identity?: string };
  return { status: res.status, identity: json.identity ?? "" };
}

const exitOf = (s: ChildService) =>
  s.proc.exitCode !== null || s.proc.signalCode !== null
    ? Promise.resolve(s.proc.exitCode)
    : new Promise<number | null>((r) => s.proc.once("exit", (code) => r(code)));

describe(`docs/keys.md's backup and restore, each block on its own (${engine})`, () => {
  it.runIf(engine === "pglite")(
    "the embedded database: the backup stops the service by its lock and copies into walkthrough/backups; a restore with no copy deletes nothing; the restore puts the copy back",
    { timeout: 300_000 },
    async () => {
      const { liteBackup, liteRestore } = backupBlocks();
      const first = await users.start(await freePort());
      const asset = await call(first, "/archivist/v2/assets", { attributes: { arc_display_type: "kept" } });
      expect(asset.status).toBe(200);

      const backup = await runBlock(liteBackup);
      expect(backup.code, `${backup.out}\n${backup.err}`).toBe(0);
      // It stopped the service as Ctrl-C does (SIGTERM, status 0) before copying.
      expect(await exitOf(first)).toBe(0);
      const copies = readdirSync(backups).filter((n) => n.startsWith("pgdata-"));
      expect(copies).toHaveLength(1);
      expect(existsSync(join(backups, copies[0] as string, "PG_VERSION"))).toBe(true);

      // No copy where the block looks: it fails, and the database is where it was.
      const none = await runBlock(liteRestore, { BACKUPS: empty });
      expect(none.code).not.toBe(0);
      expect(existsSync(join(users.dataDir, "pgdata", "PG_VERSION"))).toBe(true);

      const second = await users.start(await freePort());
      const after = await call(second, "/archivist/iam/v1/applications", {
        display_name: "after the backup",
      });
      expect(after.status).toBe(200);
      const restore = await runBlock(liteRestore);
      expect(restore.code, `${restore.out}\n${restore.err}`).toBe(0);
      expect(await exitOf(second)).toBe(0);
      expect(existsSync(join(users.dataDir, "pgdata.restoring"))).toBe(false);

      const third = await users.start(await freePort());
      expect((await call(third, `/archivist/v2/${asset.identity}`)).status).toBe(200);
      expect((await call(third, `/archivist/iam/v1/${after.identity}`)).status).toBe(404);
    },
  );

  it.runIf(engine === "postgres")(
    "PostgreSQL: the dump goes to walkthrough/backups while it runs; a restore with no dump drops nothing; the restore loads the newest dump",
    { timeout: 300_000 },
    async () => {
      const { pgBackup, pgRestore } = backupBlocks();
      const first = await users.start(await freePort());
      const asset = await call(first, "/archivist/v2/assets", { attributes: { arc_display_type: "kept" } });
      expect(asset.status).toBe(200);

      const backup = await runBlock(pgBackup);
      expect(backup.code, `${backup.out}\n${backup.err}`).toBe(0);
      expect(readdirSync(backups).filter((n) => /^archivist-.*\.dump$/.test(n))).toHaveLength(1);
      const after = await call(first, "/archivist/iam/v1/applications", { display_name: "after the backup" });
      expect(after.status).toBe(200);
      await first.kill("SIGTERM");

      const none = await runBlock(pgRestore, { BACKUPS: empty });
      expect(none.code).not.toBe(0);
      const kept = await users.start(await freePort());
      expect((await call(kept, `/archivist/iam/v1/${after.identity}`)).status).toBe(200);
      await kept.kill("SIGTERM");

      const restore = await runBlock(pgRestore);
      expect(restore.code, `${restore.out}\n${restore.err}`).toBe(0);
      const restored = await users.start(await freePort());
      expect((await call(restored, `/archivist/v2/${asset.identity}`)).status).toBe(200);
      expect((await call(restored, `/archivist/iam/v1/${after.identity}`)).status).toBe(404);
    },
  );
});
