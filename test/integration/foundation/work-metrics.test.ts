import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ed25519PublicKey, formatVkey } from "../../../src/core/log/note-sign.js";
import { COSIGNATURE_V1 } from "../../../src/formats/tlog/index.js";
import type { Db } from "../../../src/store/drivers/db.js";
import { migrate } from "../../../src/store/drivers/migrate.js";
import { uncommittedSince, unwitnessedSince } from "../../../src/store/ledger/waiting-work.js";
import { insertAssetEvents } from "../../../src/store/records/asset-event-writes.js";
import { insertFreeEvents } from "../../../src/store/records/free-events.js";
import { assetEventRow } from "../../helpers/asset-event-row.js";
import { bareTestDb, testEngine } from "../../helpers/databases.js";
import { createAsset } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";

/*
 * The ages the alerts page on (src/http/work-metrics.ts, deploy/prometheus/alerts.yml): each log's
 * oldest record waiting for the committer and oldest checkpoint waiting for a witness quorum, read
 * from the database; and every metric the rules name is one /metrics serves, so that a metric
 * renamed here cannot leave a rule that never fires.
 */
const TOKEN = "metrics-work";
const MINUTE = 60_000;

const scrape = async (s: TestService) => {
  const res = await s.api("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return res.text();
};

/** The value of one series in a scrape, or undefined when it has none. */
const sample = (text: string, series: string) => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe(`each log's waiting work, read from the database (${testEngine()})`, () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ db, close } = await bareTestDb("waiting-work"));
    await migrate(db);
  });
  afterAll(async () => close?.());

  const tenancy = async () => {
    const id = randomUUID();
    await db.query("insert into tenancies (id, display_name) values ($1, 't')", [id]);
    return id;
  };

  it("the oldest uncommitted record of each log: its queued asset events and asset-free events", async () => {
    const now = Date.now();
    const [assets, free, both, idle] = [await tenancy(), await tenancy(), await tenancy(), await tenancy()];
    const asset = randomUUID();
    const at = (ms: number) => ({ timestamp_accepted: new Date(ms) });
    // The head of each queue is its oldest: the age reported.
    await insertAssetEvents(db, [
      { ...assetEventRow(assets, asset), ...at(now - 10 * MINUTE) },
      { ...assetEventRow(assets, asset), ...at(now - MINUTE) },
      { ...assetEventRow(both, asset), ...at(now - 3 * MINUTE) },
      // Anchored, never committed: not the committer's to wait for.
      { ...assetEventRow(idle, asset, "SIMPLE_HASH"), ...at(now - 60 * MINUTE) },
    ]);
    const freeEvent = (tenant_id: string, created_at: number) => ({
      id: randomUUID(),
      tenant_id,
      attributes: {},
      trails: [],
      event_type: "",
      created_by: "",
      created_at,
    });
    await insertFreeEvents(db, [freeEvent(free, now - 20 * MINUTE), freeEvent(both, now - 5 * MINUTE)]);
    const since = new Map((await uncommittedSince(db)).map((w) => [w.tenant_id, w.since_ms]));
    expect(Object.fromEntries(since)).toEqual({
      [assets]: now - 10 * MINUTE,
      [free]: now - 20 * MINUTE,
      [both]: now - 5 * MINUTE,
    });
    // Committed, a log leaves the list: its queues emptied and its events marked, as a commit does.
    await db.query("delete from asset_event_queue where tenant_id = $1", [assets]);
    await db.query("delete from event_queue where tenant_id = $1", [free]);
    await db.query("update events set confirmation_status = 'COMMITTED' where tenant_id = $1", [free]);
    expect((await uncommittedSince(db)).map((w) => w.tenant_id)).toEqual([both]);
  });

  it("the oldest checkpoint of each log that no quorum cosigned", async () => {
    const now = Date.now();
    const [behind, witnessed] = [await tenancy(), await tenancy()];
    const checkpoint = async (tenant: string, size: number, witnessed: boolean, ago: number) => {
      await db.query("insert into logs (tenant_id) values ($1) on conflict do nothing", [tenant]);
      await db.query(
        `insert into tlog_checkpoints (tenant_id, size, mmr_size, origin, root, note, witnessed, created_at)
         values ($1, $2, $2, 'o', '\\x00', 'n', $3, $4)`,
        [tenant, size, witnessed, new Date(now - ago)],
      );
    };
    await checkpoint(behind, 1, true, 30 * MINUTE);
    await checkpoint(behind, 2, false, 20 * MINUTE);
    await checkpoint(behind, 3, false, 10 * MINUTE);
    await checkpoint(witnessed, 1, true, 5 * MINUTE);
    expect(await unwitnessedSince(db)).toEqual([{ tenant_id: behind, since_ms: now - 20 * MINUTE }]);
  });
});

describe(`/metrics serves the waiting work's ages and every metric the alerts name (${testEngine()})`, () => {
  let s: TestService | undefined;
  afterAll(() => s?.stop());

  it("a record no worker commits ages in archivist_commit_backlog_seconds; the rules' metrics are all served", async () => {
    s = await startTestService({ ARCHIVIST_METRICS_TOKEN: TOKEN, ARCHIVIST_NO_WORKERS: "true" });
    const token = await s.token(s.a);
    const before = Date.now();
    const asset = await createAsset(s, token, { arc_display_type: "waiting" });
    await new Promise((r) => setTimeout(r, 1100));
    const text = await scrape(s);
    const age = sample(text, `archivist_commit_backlog_seconds{log="${asset.tenant_identity}"}`);
    expect(age).toBeGreaterThanOrEqual(1);
    expect(age).toBeLessThanOrEqual((Date.now() - before) / 1000 + 1);
    // Without witnesses configured, no log waits for them.
    expect(text).not.toMatch(/^archivist_witness_lag_seconds\{/m);

    const rules = readFileSync(join(import.meta.dirname, "../../../deploy/prometheus/alerts.yml"), "utf8");
    const named = new Set(rules.match(/\barchivist_[a-z0-9_]+/g));
    expect(named.size).toBeGreaterThanOrEqual(5);
    const served = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    expect([...named].filter((m) => !served.has(m))).toEqual([]);
  });
});

describe(`/metrics serves how long checkpoints wait for witnesses (${testEngine()})`, () => {
  let s: TestService | undefined;
  afterAll(() => s?.stop());

  it("a witness that never answers leaves each new checkpoint waiting in archivist_witness_lag_seconds", async () => {
    // Nothing listens on port 9: every submission fails, and no checkpoint is ever witnessed.
    const vkey = formatVkey("silent.example/w", COSIGNATURE_V1, ed25519PublicKey(new Uint8Array(32).fill(9)));
    s = await startTestService({
      ARCHIVIST_METRICS_TOKEN: TOKEN,
      ARCHIVIST_WITNESSES: `${vkey} http://127.0.0.1:9`,
    });
    const token = await s.token(s.a);
    const asset = await createAsset(s, token, { arc_display_type: "witnessed" });
    await s.service.workers.flush();
    await new Promise((r) => setTimeout(r, 1100));
    const text = await scrape(s);
    expect(
      sample(text, `archivist_witness_lag_seconds{log="${asset.tenant_identity}"}`),
    ).toBeGreaterThanOrEqual(1);
    // Committed: nothing of that log waits for the committer.
    expect(sample(text, `archivist_commit_backlog_seconds{log="${asset.tenant_identity}"}`)).toBeUndefined();
  });
});
