import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { type RunningService, startService } from "../../../src/server.js";
import { bootstrapDir } from "../../helpers/bootstrap-dir.js";
import { freshPostgresDatabase, testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";

// Issue 60: an older dump restored into the database while the service runs. The log guard
// found the restore only at the next seal; the committer ran first and committed the records
// written meanwhile at leaf positions the signed log holds for other entries (COMMITTED, where
// docs/keys.md says a held log's records stay STORED). The committer now asks the guard, under
// the log's lock, before each batch. PostgreSQL only: the embedded database is this process's
// own and cannot be restored under it (the stopped case is restore-refusal.test.ts).
const postgres = testEngine() === "postgres";
if (!postgres)
  console.info(
    "restore-live: skipped on PGlite, which no other process can restore a dump into while it runs",
  );

describe.runIf(postgres)("an older dump restored under the running service", () => {
  const { dir, tenant, owner, settings } = bootstrapDir("archivist-restore-live-", "Restored live");
  let db: { url: string; drop(): Promise<void> } | undefined;
  let s: RunningService | undefined;
  afterAll(async () => {
    await s?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("commits nothing at the positions the signed log holds: new records stay STORED, the log is held", {
    timeout: 120_000,
  }, async () => {
    db = await freshPostgresDatabase();
    const url = db.url;
    s = await startService(loadConfig({}, settings({ DATABASE_URL: url })));
    const running = s;
    const res = await fetch(`${running.url}/archivist/iam/v1/appidp/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "client_credentials", ...owner }),
    });
    const token = ((await res.json()) as { access_token: string }).access_token;
    const call = async (path: string, body?: unknown) => {
      const r = await fetch(`${running.url}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(r.status).toBe(200);
      return (await r.json()) as Record<string, unknown>;
    };
    const event = (n: number) => ({
      operation: "Record",
      behaviour: "RecordEvidence",
      event_attributes: { arc_display_type: `step ${n}` },
    });
    const checkpointSize = async () =>
      Number(
        (
          await (await fetch(`${running.url}/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`)).text()
        ).split("\n")[1],
      );
    const sealedAt = (size: number) =>
      until(async () => {
        await running.workers.flush();
        return (await checkpointSize()) === size || undefined;
      });
    const asset = String(
      (await call("/archivist/v2/assets", { attributes: { arc_display_type: "t" } })).identity,
    );
    for (const n of [1, 2]) await call(`/archivist/v2/${asset}/events`, event(n));
    await sealedAt(3);
    // An older backup: a plain dump that drops and recreates every table when loaded.
    const dump = join(dir, "older.sql");
    execFileSync("sh", ["-c", `pg_dump --no-owner --clean --if-exists "${url}" > "${dump}"`]);
    for (const n of [3, 4, 5]) await call(`/archivist/v2/${asset}/events`, event(n));
    await sealedAt(6);

    // Restored into the live database, the service still running.
    execFileSync("psql", ["-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-f", dump], { stdio: "ignore" });
    const written = await call(`/archivist/v2/${asset}/events`, event(6));
    await running.workers.flush();
    await running.workers.flush();
    const id = String(written.identity).split("/").pop() as string;
    // Not committed: no entry at leaf 3, the signed log's position for step 3's record.
    expect(await running.ctx.db.query("select 1 from log_entries where record_id = $1", [id])).toEqual([]);
    const entries = await running.ctx.db.query<{ n: number }>(
      "select count(*)::int as n from log_entries where tenant_id = $1",
      [tenant],
    );
    expect(entries[0]?.n).toBe(3);
    expect((await call(`/archivist/v2/${String(written.identity)}`)).confirmation_status).toBe("STORED");
    // Held, and the operator is told which acknowledged entries are missing.
    expect(running.ctx.logGuard.heldLogs().map((h) => [h.tenant_id, h.kind, h.missing_leaves])).toEqual([
      [tenant, "behind", [3, 6]],
    ]);
    const ready = await fetch(`${running.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { message: string }).message).toContain(
      "entries 3 to 5 were acknowledged and are missing",
    );
    expect(await checkpointSize()).toBe(3);
  });
});
