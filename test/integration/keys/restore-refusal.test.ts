import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keysCommand } from "../../../src/cli/keys.js";
import { logCommand } from "../../../src/cli/log.js";
import { verifyPublicCommand } from "../../../src/cli/verify-public.js";
import { loadConfig } from "../../../src/config.js";
import { type RunningService, startService } from "../../../src/server.js";
import { bootstrapDir } from "../../helpers/bootstrap-dir.js";
import { runCli } from "../../helpers/cli-output.js";
import { freshPostgresDatabase, testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";

// Issue 51: a service restored from an older backup must not sign a checkpoint of a smaller or
// different tree than the one it already published (a split view of its own making). What it
// last signed is kept with its keys; after the restore it refuses to seal, says why (readiness,
// the held log's missing entries), keeps accepting records without committing them over the lost
// ones, and signs again only after `archivist keys accept-restore`, which records what was lost.
const { dir, dataDir, keyDir, tenant, owner, settings } = bootstrapDir("archivist-restore-", "Restored");
let db: { url: string; drop(): Promise<void> } | undefined;
let running: RunningService | undefined;

// The test drives commits and seals itself (workers.flush); the timers only add more of the same.
const env = () => settings({ ARCHIVIST_KEY_RELOAD_MS: "60000", ...(db ? { DATABASE_URL: db.url } : {}) });

async function start(): Promise<RunningService> {
  running = await startService(loadConfig({}, env()));
  return running;
}

async function stop(): Promise<void> {
  await running?.close();
  running = undefined;
}

async function tokenOf(s: RunningService): Promise<string> {
  const res = await fetch(`${s.url}/archivist/iam/v1/appidp/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "client_credentials", ...owner }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

async function call(s: RunningService, token: string, path: string, body?: unknown) {
  const res = await fetch(`${s.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const record = (n: number) => ({
  operation: "Record",
  behaviour: "RecordEvidence",
  event_attributes: { arc_display_type: `step ${n}` },
});

/** The checkpoint's size, as served. */
async function checkpointSize(s: RunningService): Promise<number> {
  const note = await (await fetch(`${s.url}/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`)).text();
  return Number(note.split("\n")[1]);
}

/** Commits and seals (a tick already under way may have started before the commit: then again) until the checkpoint has `size` entries. */
async function sealedAt(s: RunningService, size: number): Promise<number> {
  return until(async () => {
    await s.workers.flush();
    const now = await checkpointSize(s);
    return now === size ? now : undefined;
  });
}

/** A backup as a user makes one: pg_dump, or a copy of the stopped embedded database's directory. */
function backup(to: string): void {
  if (db) writeFileSync(to, execFileSync("pg_dump", ["--no-owner", db.url], { maxBuffer: 1 << 30 }));
  else cpSync(join(dataDir, "pgdata"), to, { recursive: true });
}

/** Puts the backup back: a new database loaded with psql, or the directory copied back. */
async function restore(from: string): Promise<void> {
  if (db) {
    const url = new URL(db.url);
    const name = url.pathname.slice(1);
    url.pathname = "/postgres";
    const admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    await admin.query(`drop database ${name} with (force)`);
    await admin.query(`create database ${name}`);
    await admin.end();
    execFileSync("psql", ["-q", "-v", "ON_ERROR_STOP=1", "-d", db.url, "-f", from], { stdio: "ignore" });
  } else {
    rmSync(join(dataDir, "pgdata"), { recursive: true, force: true });
    cpSync(from, join(dataDir, "pgdata"), { recursive: true });
  }
}

beforeAll(async () => {
  db = testEngine() === "postgres" ? await freshPostgresDatabase() : undefined;
});
afterAll(async () => {
  await stop();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe(`a restore of an older backup cannot fork the log (${testEngine()})`, () => {
  it("refuses to sign, says which entries were lost, keeps new records STORED, and signs again after accept-restore", {
    timeout: 240_000,
  }, async () => {
    let s = await start();
    let token = await tokenOf(s);
    const asset = (await call(s, token, "/archivist/v2/assets", { attributes: { arc_display_type: "t" } }))
      .body.identity as string;
    for (const n of [1, 2])
      expect((await call(s, token, `/archivist/v2/${asset}/events`, record(n))).status).toBe(200);
    // The asset's creation and its two events: three entries, sealed.
    const backedUp = await sealedAt(s, 3);

    // The backup, then more records acknowledged, committed and sealed: a checkpoint of a bigger tree.
    const saved = join(dir, db ? "backup.sql" : "pgdata-backup");
    if (!db) await stop();
    backup(saved);
    if (!db) {
      s = await start();
      token = await tokenOf(s);
    }
    const after: string[] = [];
    for (const n of [3, 4, 5])
      after.push((await call(s, token, `/archivist/v2/${asset}/events`, record(n))).body.identity as string);
    const signed = await sealedAt(s, backedUp + 3);
    const statePath = join(keyDir, "state", `${tenant}.json`);
    const signedState = readFileSync(statePath, "utf8");
    // What witnesses would hold: the checkpoint the log published, and its key.
    const published = join(dir, "published-checkpoint.txt");
    writeFileSync(
      published,
      await (await fetch(`${s.url}/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`)).text(),
    );
    const vkey = join(dir, "log.vkey");
    writeFileSync(vkey, await (await fetch(`${s.url}/archivist/v1/merklelogs/${tenant}/tlog/key`)).text());
    const keySet = join(dir, "scitt-keys.cbor");
    writeFileSync(keySet, Buffer.from(await (await fetch(`${s.url}/.well-known/scitt-keys`)).arrayBuffer()));
    const verifyLog = (url: string) =>
      runCli(
        (a) => verifyPublicCommand.run(a),
        [
          "--log",
          `tenant/${tenant}`,
          "--url",
          url,
          "--checkpoint",
          published,
          "--log-key",
          vkey,
          "--keys",
          keySet,
        ],
      );
    const intact = await verifyLog(s.url);
    expect(intact.code, intact.out).toBe(0);
    expect(intact.out).toContain(`extends the published checkpoint of ${signed} entries`);
    // The leaf indexes of the records acknowledged after the backup.
    const lostLeaves: number[] = [];
    for (const id of after) {
      const e = (await call(s, token, `/archivist/v2/${id}`)).body as {
        merklelog_entry: { commit: { index: string } };
      };
      const entry = (
        await call(s, token, `/archivist/v1/merklelogs/${tenant}/entries/${e.merklelog_entry.commit.index}`)
      ).body as { leaf_index: number };
      lostLeaves.push(entry.leaf_index);
    }
    expect(lostLeaves).toEqual([backedUp, backedUp + 1, backedUp + 2]);
    await stop();

    await restore(saved);
    s = await start();
    token = await tokenOf(s);

    // It says why, on /readyz and in what the operator is shown.
    const ready = await fetch(`${s.url}/readyz`);
    expect(ready.status).toBe(503);
    const why = ((await ready.json()) as { message: string }).message;
    expect(why).toContain(`log tenant/${tenant}`);
    expect(why).toContain(`entries ${backedUp} to ${backedUp + 2} were acknowledged and are missing`);
    expect(why).toContain("archivist keys accept-restore");
    const held = s.ctx.logGuard.heldLogs();
    expect(held.map((h) => [h.tenant_id, h.kind, h.missing_leaves])).toEqual([
      [tenant, "behind", [backedUp, backedUp + 3]],
    ]);
    // The reason and the fields name the same leaves: [from, to) said so, and both ends included.
    expect(why).toContain(`missing_leaves [${backedUp}, ${backedUp + 3}), the end excluded`);
    expect(held.map((h) => [h.first_missing, h.last_missing])).toEqual([[backedUp, backedUp + 2]]);

    // Records are still accepted and stored, but nothing is committed over the lost entries or signed.
    const posted = await call(s, token, `/archivist/v2/${asset}/events`, record(6));
    expect(posted.status).toBe(200);
    await s.workers.flush();
    await s.workers.flush();
    expect(await checkpointSize(s)).toBe(backedUp);
    const waiting = (await call(s, token, `/archivist/v2/${posted.body.identity as string}`)).body;
    expect(waiting.confirmation_status).toBe("STORED");
    const state = JSON.parse(readFileSync(join(keyDir, "state", `${tenant}.json`), "utf8")) as {
      tree_size: number;
    };
    expect(state.tree_size).toBe(signed);
    // A relying party (or the operator) checks the restored log against the published checkpoint.
    const restored = await verifyLog(s.url);
    expect(restored.code, restored.out).toBe(1);
    expect(restored.out).toContain(
      `entries ${backedUp} to ${signed - 1} are missing, so it is not the published log`,
    );
    await stop();

    // The operator accepts, explicitly; the loss is recorded with the keys and in the log.
    const flags = ["--data-dir", dataDir, "--key-dir", keyDir, ...(db ? ["--database-url", db.url] : [])];
    // Before that, a held log's period cannot be closed: refused, nothing written.
    const periods = () =>
      runCli((a) => logCommand.run(a), ["periods", `tenant/${tenant}`, "--json", ...flags]);
    const periodsBefore = (await periods()).out;
    const close = await runCli((a) => logCommand.run(a), ["close", `tenant/${tenant}`, ...flags]);
    expect(close.code, close.out).not.toBe(0);
    expect(close.out).toMatch(/^FAILED .* is held/m);
    expect(close.out).not.toContain("closed at");
    expect((await periods()).out).toBe(periodsBefore);
    // A log that does not exist is named as such, not "nothing to accept".
    const unknown = crypto.randomUUID();
    const nowhere = await runCli(
      (a) => keysCommand.run(a),
      ["accept-restore", "--log", `tenant/${unknown}`, ...flags],
    );
    expect(nowhere.code, nowhere.out).not.toBe(0);
    expect(nowhere.out).toContain(`tenant/${unknown}: no such log`);
    const accepted = await runCli(
      (a) => keysCommand.run(a),
      ["accept-restore", "--log", `tenant/${tenant}`, "--note", "restored after a disk failure", ...flags],
    );
    expect(accepted.code).toBe(0);
    expect(accepted.out).toContain(
      `entries ${backedUp} to ${backedUp + 2} were acknowledged and are missing`,
    );
    const record0 = readFileSync(join(keyDir, "state", `${tenant}.accepted.jsonl`), "utf8");
    expect(JSON.parse(record0.trim())).toMatchObject({
      tenant_id: tenant,
      missing_leaves: [backedUp, backedUp + 3],
      first_missing: backedUp,
      last_missing: backedUp + 2,
      note: "restored after a disk failure",
    });
    const again = await runCli(
      (a) => keysCommand.run(a),
      ["accept-restore", "--log", `tenant/${tenant}`, ...flags],
    );
    expect(again.out).toContain("nothing to accept");

    s = await start();
    token = await tokenOf(s);
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    // The waiting record and the acceptance's own record, committed and signed.
    await sealedAt(s, backedUp + 2);
    const committed = (await call(s, token, `/archivist/v2/${posted.body.identity as string}`)).body;
    expect(committed.confirmation_status).not.toBe("STORED");
    const events = (
      await call(s, token, "/archivist/v1/events/search", {
        filter: "attributes/arc_display_type eq 'archivist_restore_accepted'",
      })
    ).body as { events: Array<{ attributes: Record<string, string> }> };
    expect(
      events.events.map((e) => [
        e.attributes.missing_leaves,
        e.attributes.first_missing,
        e.attributes.last_missing,
      ]),
    ).toEqual([[`${backedUp}-${backedUp + 2}`, String(backedUp), String(backedUp + 2)]]);
    expect(existsSync(join(keyDir, "state", `${tenant}.json`))).toBe(true);
    // Signed again, past the published size: a fork of the published log, and the verifier says so.
    for (const n of [7, 8])
      expect((await call(s, token, `/archivist/v2/${asset}/events`, record(n))).status).toBe(200);
    await sealedAt(s, backedUp + 4);
    const forked = await verifyLog(s.url);
    expect(forked.code, forked.out).toBe(1);
    expect(forked.out).toContain("it is a fork of the published log");

    // A database that holds other entries at a size the service signed is held too: here the
    // signed state of the published checkpoint, against the database that went on after the loss.
    await stop();
    writeFileSync(statePath, signedState);
    s = await start();
    const differs = await fetch(`${s.url}/readyz`);
    expect(differs.status).toBe(503);
    expect(((await differs.json()) as { message: string }).message).toContain("it holds other entries");
    expect(s.ctx.logGuard.heldLogs().map((h) => [h.kind, h.missing_leaves])).toEqual([["fork", null]]);
  });
});
