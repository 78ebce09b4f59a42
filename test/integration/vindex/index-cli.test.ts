import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Command } from "../../../src/cli/command.js";
import { indexCommand } from "../../../src/cli/index-command.js";
import { mirrorCommand } from "../../../src/cli/mirror.js";
import { runCli } from "../../helpers/cli-output.js";
import { testEngine } from "../../helpers/databases.js";
import { until } from "../../helpers/poll.js";
import { createAsset } from "../../helpers/records.js";
import { cose, statementOf, trustVectorKey } from "../../helpers/scitt-requests.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { vconEvent } from "../../helpers/vcon-event.js";

// `archivist index audit` and `index rebuild` against a real service (issue 72, "Monitoring"):
// what anyone checks from the public material, and what a reader with the whole read grant
// checks from the records, each failing where a database writer changed what it checks.
let s: TestService;
let token: string;
let tenant: string;
let dir: string;
let logKeyFile: string;
const vcon = crypto.randomUUID();

const cli = (cmd: Command, args: string[]) => runCli((a) => cmd.run(a), args);
const logUrl = () => `${s.url}/archivist/v1/merklelogs/${tenant}`;
const credentials = () => ["--url", s.url, "--client-id", s.a.clientId, "--client-secret", s.a.clientSecret];
const audit = (...more: string[]) => cli(indexCommand, ["audit", logUrl(), "--log-key", logKeyFile, ...more]);
const rebuild = (...more: string[]) =>
  cli(indexCommand, ["rebuild", ...credentials(), "--log-key", logKeyFile, ...more]);

interface Revisions {
  size: number;
  revisions: Array<{ seq: number; log_size: number; index_root: string }>;
}

async function revisions(): Promise<Revisions> {
  return (await (await s.api(`/archivist/v1/merklelogs/${tenant}/vindex/revisions`)).json()) as Revisions;
}

/** Waits until the log holds `entries` entries and the index's newest revision covers them all. */
async function untilIndexed(entries: number): Promise<Revisions> {
  return until(async () => {
    const note = await (await s.api(`/archivist/v1/merklelogs/${tenant}/tlog/checkpoint`)).text();
    const size = Number(note.split("\n")[1]);
    const r = await revisions();
    return size >= entries && r.revisions.at(-1)?.log_size === size ? r : undefined;
  }, 30_000);
}

async function vconEvents(asset: string, ops: string[]): Promise<void> {
  for (const [i, op] of ops.entries()) {
    const res = await s.api(`/archivist/v2/${asset}/events`, {
      method: "POST",
      token,
      json: vconEvent(vcon, op, `2025-04-0${i + 1}`),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  }
}

beforeAll(async () => {
  s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" });
  token = await s.token(s.a);
  dir = mkdtempSync(join(tmpdir(), "archivist-index-cli-"));
  const created = await createAsset(s, token, { arc_display_type: "vcon" });
  tenant = created.tenant_identity.replace("tenant/", "");
  await vconEvents(created.identity, ["vcon_create", "vcon_update"]);
  // A first revision before the rest, so that the index has several.
  await untilIndexed(3);
  await vconEvents(created.identity, ["vcon_consent_revoke"]);
  const free = await s.api("/archivist/v1/events", {
    method: "POST",
    token,
    json: { attributes: { arc_display_type: "vcon_note", subject: `vcon://${vcon}` } },
  });
  expect(free.status, await free.clone().text()).toBe(200);
  await trustVectorKey(s, token);
  const reg = await s.api("/entries", cose(statementOf(7), token));
  expect([201, 202, 303], await reg.clone().text()).toContain(reg.status);
  await untilIndexed(6);
  logKeyFile = join(dir, "log.vkey");
  writeFileSync(logKeyFile, await (await s.api(`/archivist/v1/merklelogs/${tenant}/tlog/key`)).text());
}, 120_000);

afterAll(async () => {
  await s?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe(`archivist index (${testEngine()})`, { timeout: 120_000 }, () => {
  it("rebuild: the index rebuilt from every record matches every published revision", async () => {
    const { revisions: revs } = await revisions();
    const r = await rebuild();
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(
      new RegExp(
        `^OK index of tenant/${tenant}: rebuilt from 6 records, all ${revs.length} revisions match, up to ${revs.at(-1)?.log_size} log entries\n`,
      ),
    );
    expect(r.out).toContain("log key: pinned");
    // Progress went to stderr, the verdict alone to stdout.
    expect(r.err).toMatch(/verified \d+ of \d+ keys' positions/);
  });

  it("audit: the output log is signed, served whole, and bound to the log's roots; --state keeps it growing", async () => {
    const state = join(dir, "index.state");
    const first = await audit("--state", state);
    expect(first.code, first.out + first.err).toBe(0);
    expect(first.out).toMatch(/^OK index of tenant\/.*: \d+ revisions signed and served whole/);
    expect(first.out).toContain("not checked: whether each index root is the map of the log's records");
    const again = await audit("--state", state);
    expect(again.code, again.out).toBe(0);
    expect(again.out).toMatch(/extends the one of \d+ revisions audited last time/);
  });

  it("audit and rebuild read the log's tiles from a mirror as well", async () => {
    const mirror = join(dir, "mirror");
    const m = await cli(mirrorCommand, [`${logUrl()}/tlog`, mirror]);
    expect(m.code, m.out).toBe(0);
    expect((await audit("--mirror", mirror)).code).toBe(0);
    const r = await rebuild("--mirror", mirror);
    expect(r.code, r.out).toBe(0);
  });

  it("says when the log key is not pinned, and exits 2 as an unpinned verdict does", async () => {
    const r = await cli(indexCommand, ["audit", logUrl()]);
    expect(r.code, r.out).toBe(2);
    expect(r.out).toContain("log key: NOT PINNED");
  });

  it("a revision's index root changed in the database: both fail, naming its log size", async () => {
    const { revisions: revs } = await revisions();
    const target = revs[0] as Revisions["revisions"][number];
    const db = s.service.ctx.db;
    const where = "where tenant_id = $1 and seq = $2";
    await db.query(`update vindex_revisions set index_root = $3 ${where}`, [
      tenant,
      target.seq,
      Buffer.alloc(32, 7),
    ]);
    try {
      const a = await audit();
      expect(a.code, a.out).toBe(1);
      expect(a.out).toContain(
        `FAILED revision ${target.seq} (the log at ${target.log_size} entries) as served is not the one the index checkpoint`,
      );
      const r = await rebuild();
      expect(r.code, r.out).toBe(1);
      expect(r.out).toContain(
        `the index of the log at ${target.log_size} entries (revision ${target.seq}) differs`,
      );
    } finally {
      await db.query(`update vindex_revisions set index_root = $3 ${where}`, [
        tenant,
        target.seq,
        Buffer.from(target.index_root, "hex"),
      ]);
    }
    expect((await audit()).code).toBe(0);
  });

  it("a record's JSON changed in the database: rebuild fails the tile check, naming the record", async () => {
    const db = s.service.ctx.db;
    const [row] = await db.query<{ id: string; asset_id: string; event_attributes: Record<string, unknown> }>(
      "select id, asset_id, event_attributes from asset_events where tenant_id = $1 and event_attributes ->> 'vcon_operation' = 'vcon_update'",
      [tenant],
    );
    if (!row) throw new Error("no vcon_update event");
    const altered = { ...row.event_attributes, vcon_operation: "vcon_delete" };
    const set = "update asset_events set event_attributes = $3 where tenant_id = $1 and id = $2";
    await db.query(set, [tenant, row.id, JSON.stringify(altered)]);
    try {
      const r = await rebuild();
      expect(r.code, r.out).toBe(1);
      expect(r.out).toMatch(
        new RegExp(
          `^FAILED record assets/${row.asset_id}/events/${row.id} \\(log entry \\d+\\): its JSON does not give`,
        ),
      );
      expect((await audit()).code).toBe(0);
    } finally {
      await db.query(set, [tenant, row.id, JSON.stringify(row.event_attributes)]);
    }
  });
});
