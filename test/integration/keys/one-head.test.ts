import { execFileSync } from "node:child_process";
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPgReplica } from "../../../bench/pg-replica.js";
import { loadConfig } from "../../../src/config.js";
import { type RunningService, startService } from "../../../src/server.js";
import { bootstrapDir } from "../../helpers/bootstrap-dir.js";
import { POSTGRES_ADMIN_URL, testEngine } from "../../helpers/databases.js";
import { ETCD_URL, etcdMissing, etcdPrefix } from "../../helpers/etcd.js";
import { startPgCluster } from "../../helpers/pg-cluster.js";
import { until } from "../../helpers/poll.js";

/*
 * Issue 71, one head: two services that each believe they sign one log (a promoted standby, a
 * copy of the database, while the first service still runs), each on its own database and its own
 * copy of the key directory, sharing the log's head in etcd. Both take writes and race to seal
 * them: only one head is ever signed at a size; the other service's swap fails before it signs,
 * its log is held, and it answers the log's writes 503 HEAD_LOST. Twenty runs, each from the same
 * sealed log copied into two fresh databases.
 */
const postgres = testEngine() === "postgres";
const missing = postgres ? await etcdMissing() : undefined;
if (missing && process.env.CI === "true") throw new Error(`the one-head test needs etcd in CI: ${missing}`);
if (!postgres) console.info("one head: runs on PostgreSQL (two services on two databases of one log)");
else if (missing) console.warn(`one head: skipped, ${missing}`);

const RUNS = 20;
const base = bootstrapDir("archivist-one-head-", "One head");
const template = `archivist_one_head_${process.pid}`;
const dbUrl = (name: string) => {
  const u = new URL(POSTGRES_ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
};
const admin = async <T>(f: (c: pg.Client) => Promise<T>): Promise<T> => {
  const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.end();
  }
};

interface Started {
  s: RunningService;
  token: string;
}

async function start(env: Record<string, string>): Promise<Started> {
  const s = await startService(
    loadConfig({}, base.settings({ ARCHIVIST_SHUTDOWN_TIMEOUT_MS: "2000", ...env })),
  );
  const res = await fetch(`${s.url}/archivist/iam/v1/appidp/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "client_credentials", ...base.owner }),
  });
  return { s, token: ((await res.json()) as { access_token: string }).access_token };
}

const post = async (x: Started, path: string, body: unknown) => {
  const res = await fetch(`${x.s.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${x.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};
const event = (assetId: string, who: string, n: number) => ({
  path: `/archivist/v2/${assetId}/events`,
  body: {
    operation: "Record",
    behaviour: "RecordEvidence",
    event_attributes: { arc_display_type: "split", writer: who, n: String(n) },
  },
});

/** Every signed head a database holds: checkpoints' roots by size, seals' peaks by MMR size. */
async function heads(url: string): Promise<{ checkpoints: Map<number, string>; seals: Map<number, string> }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const cps = await c.query<{ size: string; root: Buffer }>(
      "select size, root from tlog_checkpoints where tenant_id = $1",
      [base.tenant],
    );
    const seals = await c.query<{ mmr_size: string; peaks: string[] }>(
      "select mmr_size, peaks from seals where tenant_id = $1",
      [base.tenant],
    );
    return {
      checkpoints: new Map(cps.rows.map((r) => [Number(r.size), r.root.toString("hex")])),
      seals: new Map(seals.rows.map((r) => [Number(r.mmr_size), JSON.stringify(r.peaks)])),
    };
  } finally {
    await c.end();
  }
}

let assetId = "";

/** Both services take writes, different ones, and race to seal them; twice. */
async function raceToSeal(services: Started[], label: string): Promise<void> {
  for (let round = 0; round < 2; round++) {
    await Promise.all(
      services.map(async (x, i) => {
        for (let n = 0; n < 2 + i; n++) {
          const e = event(assetId, `${label}-${i}`, round * 10 + n);
          await post(x, e.path, e.body);
        }
      }),
    );
    await Promise.all(services.map((x) => x.s.workers.flush()));
  }
}

/**
 * Two services' databases hold one head at every size; exactly one service lost the log's head:
 * it refuses the log's writes (503 HEAD_LOST) and is not ready, naming the log; the other takes them.
 */
async function oneHead(
  label: string,
  urls: string[],
  services: Started[],
  loserIs: (loser: Started) => void,
): Promise<void> {
  const [p, s] = await Promise.all(urls.map(heads));
  for (const [size, root] of p?.checkpoints ?? [])
    if (s?.checkpoints.has(size)) expect(s.checkpoints.get(size), `${label}: checkpoint ${size}`).toBe(root);
  for (const [size, peaks] of p?.seals ?? [])
    if (s?.seals.has(size)) expect(s.seals.get(size), `${label}: seal ${size}`).toBe(peaks);
  const lost = services.filter((x) => x.s.ctx.logGuard.headLost(base.tenant));
  expect(lost, `${label}: the services that lost the head`).toHaveLength(1);
  const loser = lost[0] as Started;
  const winner = services.find((x) => x !== loser) as Started;
  loserIs(loser);
  const e = event(assetId, "after", 0);
  const refused = await post(loser, e.path, e.body);
  expect(refused.status).toBe(503);
  expect(JSON.stringify(refused.json.details)).toContain("HEAD_LOST");
  expect((await post(winner, e.path, e.body)).status).toBe(200);
  const ready = await fetch(`${loser.s.url}/readyz`);
  expect(ready.status).toBe(503);
  expect(((await ready.json()) as { message: string }).message).toContain(`tenant/${base.tenant}`);
}

describe.runIf(postgres && !missing)("one head: two services on two databases of one log", () => {
  beforeAll(async () => {
    await admin((c) => c.query(`create database ${template}`));
    // The log as it stood when the databases parted: an asset and a few sealed events.
    const first = await start({ DATABASE_URL: dbUrl(template) });
    const asset = await post(first, "/archivist/v2/assets", { attributes: { arc_display_type: "split" } });
    expect(asset.status).toBe(200);
    assetId = String(asset.json.identity);
    for (let i = 0; i < 3; i++) {
      const e = event(assetId, "before", i);
      expect((await post(first, e.path, e.body)).status).toBe(200);
    }
    await first.s.workers.flush();
    await first.s.close();
  }, 120_000);
  afterAll(async () => {
    await admin((c) => c.query(`drop database if exists ${template} with (force)`));
    rmSync(base.dir, { recursive: true, force: true });
  });

  it(`never signs two heads at one size (${RUNS} runs)`, async () => {
    const losers: string[] = [];
    for (let run = 0; run < RUNS; run++) {
      const names = [`${template}_${run}_p`, `${template}_${run}_s`];
      await admin(async (c) => {
        for (const n of names) await c.query(`create database ${n} template ${template}`);
      });
      const prefix = etcdPrefix(`one-head-${run}`);
      const services: Started[] = [];
      try {
        // Each its own key directory, copied from the one that signed the shared past.
        for (const [i, n] of names.entries()) {
          const keyDir = join(base.dir, `keys-${run}-${i}`);
          cpSync(base.keyDir, keyDir, { recursive: true });
          services.push(
            await start({
              DATABASE_URL: dbUrl(n),
              DATA_DIR: join(base.dir, `data-${run}-${i}`),
              ARCHIVIST_KEY_DIR: keyDir,
              ARCHIVIST_ETCD_ENDPOINTS: ETCD_URL,
              ARCHIVIST_ETCD_PREFIX: prefix,
            }),
          );
        }
        await raceToSeal(services, `${run}`);
        await oneHead(`run ${run}`, names.map(dbUrl), services, (loser) =>
          losers.push(loser === services[0] ? "first" : "second"),
        );
      } finally {
        for (const x of services) await x.s.close().catch(() => undefined);
        await admin(async (c) => {
          for (const n of names) await c.query(`drop database if exists ${n} with (force)`);
        });
      }
    }
    console.info(`one head: ${RUNS} runs, the head lost by: ${losers.join(" ")}`);
  }, 600_000);

  it("a streaming standby promoted while the primary's service runs: one head, and the service that lost it takes no writes", async () => {
    const primary = await startPgCluster();
    const services: Started[] = [];
    try {
      await admin(async (c) => {
        // The shared log's past, copied onto the primary of the test's own.
        await c.query(`create database ${template}_copy template ${template}`);
      });
      const dump = execFileSync("pg_dump", ["--no-owner", dbUrl(`${template}_copy`)], { maxBuffer: 1 << 28 });
      await admin((c) => c.query(`drop database ${template}_copy`));
      const onPrimary = new pg.Client({ connectionString: primary.url() });
      await onPrimary.connect();
      await onPrimary.query("create database archivist");
      await onPrimary.end();
      execFileSync("psql", ["-q", "-v", "ON_ERROR_STOP=1", primary.url("archivist")], { input: dump });
      const standby = await startPgReplica(primary.url());
      try {
        const prefix = etcdPrefix("one-head-promoted");
        const keyDirs = [0, 1].map((i) => {
          const k = join(base.dir, `keys-promoted-${i}`);
          cpSync(base.keyDir, k, { recursive: true });
          return k;
        });
        const env = (i: number, url: string) => ({
          DATABASE_URL: url,
          DATA_DIR: join(base.dir, `data-promoted-${i}`),
          ARCHIVIST_KEY_DIR: keyDirs[i] as string,
          ARCHIVIST_ETCD_ENDPOINTS: ETCD_URL,
          ARCHIVIST_ETCD_PREFIX: prefix,
        });
        const first = await start(env(0, primary.url("archivist")));
        services.push(first);
        const e0 = event(assetId, "primary", 0);
        expect((await post(first, e0.path, e0.body)).status).toBe(200);
        await first.s.workers.flush();
        // The standby has what the primary sealed; then it is promoted while the first service runs.
        const standbyUrl = standby.urlOf(primary.url("archivist"));
        await until(async () => {
          const c = new pg.Client({ connectionString: standbyUrl });
          await c.connect().catch(() => undefined);
          const r = await c
            .query("select count(*)::int as n from seals where tenant_id = $1", [base.tenant])
            .catch(() => ({ rows: [{ n: 0 }] }));
          await c.end().catch(() => undefined);
          const n = (await heads(primary.url("archivist"))).seals.size;
          return (r.rows[0] as { n: number }).n === n || undefined;
        }, 30_000);
        await standby.promote();
        const second = await start(env(1, standbyUrl));
        services.push(second);
        await raceToSeal(services, "promoted");
        await oneHead("promoted standby", [primary.url("archivist"), standbyUrl], services, () => undefined);
      } finally {
        for (const x of services) await x.s.close().catch(() => undefined);
        await standby.close();
      }
    } finally {
      await primary.close();
    }
  }, 300_000);
});
