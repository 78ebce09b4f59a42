import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { type RunningService, startService } from "../../../src/server.js";
import { bootstrapDir } from "../../helpers/bootstrap-dir.js";
import { POSTGRES_ADMIN_URL, testEngine } from "../../helpers/databases.js";
import { ETCD_URL, etcdMissing, etcdPrefix } from "../../helpers/etcd.js";

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
async function heads(db: string): Promise<{ checkpoints: Map<number, string>; seals: Map<number, string> }> {
  const c = new pg.Client({ connectionString: dbUrl(db) });
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
        // Both take writes, different ones, and race to seal them; twice.
        for (let round = 0; round < 2; round++) {
          await Promise.all(
            services.map(async (x, i) => {
              for (let n = 0; n < 2 + i; n++) {
                const e = event(assetId, `${run}-${i}`, round * 10 + n);
                await post(x, e.path, e.body);
              }
            }),
          );
          await Promise.all(services.map((x) => x.s.workers.flush()));
        }
        const [p, s] = await Promise.all(names.map(heads));
        for (const [size, root] of p?.checkpoints ?? [])
          if (s?.checkpoints.has(size))
            expect(s.checkpoints.get(size), `run ${run}: checkpoint ${size}`).toBe(root);
        for (const [size, peaks] of p?.seals ?? [])
          if (s?.seals.has(size)) expect(s.seals.get(size), `run ${run}: seal ${size}`).toBe(peaks);
        // One of them lost the head: its log is held, and it takes no more writes for it.
        const lost = services.filter((x) => x.s.ctx.logGuard.headLost(base.tenant));
        expect(lost, `run ${run}: the services that lost the head`).toHaveLength(1);
        const loser = lost[0] as Started;
        const winner = services.find((x) => x !== loser) as Started;
        losers.push(loser === services[0] ? "first" : "second");
        const e = event(assetId, "after", 0);
        const refused = await post(loser, e.path, e.body);
        expect(refused.status).toBe(503);
        expect(JSON.stringify(refused.json.details)).toContain("HEAD_LOST");
        expect((await post(winner, e.path, e.body)).status).toBe(200);
        const ready = await fetch(`${loser.s.url}/readyz`);
        expect(ready.status).toBe(503);
        expect(((await ready.json()) as { message: string }).message).toContain(`tenant/${base.tenant}`);
      } finally {
        for (const x of services) await x.s.close().catch(() => undefined);
        await admin(async (c) => {
          for (const n of names) await c.query(`drop database if exists ${n} with (force)`);
        });
      }
    }
    console.info(`one head: ${RUNS} runs, the head lost by: ${losers.join(" ")}`);
  }, 600_000);
});
