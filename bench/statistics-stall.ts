/*
 * How long the embedded engine's statistics pass (store/drivers/statistics.ts) stalls writes. A PGlite
 * service in a fresh directory, seeded with SEED asset events and, in the other tenancy's log
 * (nothing writes to it here), the log rows a committer makes for as many; CONCURRENCY clients
 * write events to it while, every ROUND_MS, the big tables are marked stale (half the size they
 * were analysed at, their rows' width kept) and the pass runs as the statistics worker runs it.
 * Writes overlapping a pass are compared with the others; each statement of a pass is timed.
 *
 *   npm run build && SEED=100000 node dist/bench/statistics-stall.js [passes]
 *   STATS=<another tree>/dist/src/store/drivers/statistics.js node dist/bench/statistics-stall.js
 *     (that tree's pass, in this tree's service: before and after a change, interleaved)
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadConfig } from "../src/config.js";
import { startService } from "../src/server.js";
import type { Db, Queryable } from "../src/store/drivers/db.js";
import * as ours from "../src/store/drivers/statistics.js";

type Pass = (db: Pick<Db, "query" | "transaction">) => Promise<string[]>;

const SEED = Number(process.env.SEED ?? 100_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
const PASSES = Number(process.argv[2] ?? 6);
const ROUND_MS = 6_000;
const say = (line: string) => process.stdout.write(`${line}\n`);

const analyzeStale: Pass = process.env.STATS
  ? ((await import(pathToFileURL(process.env.STATS).href)) as { analyzeStale: Pass }).analyzeStale
  : ours.analyzeStale;

const dir = mkdtempSync(join(tmpdir(), "statistics-stall-"));
const owner = { client_id: randomUUID(), client_secret: `s-${randomUUID()}` };
const other = randomUUID();
writeFileSync(
  join(dir, "bootstrap-in.json"),
  JSON.stringify({
    tenancies: [
      { display_name: "A", owner },
      {
        id: other,
        display_name: "B",
        owner: { client_id: randomUUID(), client_secret: `s-${randomUUID()}` },
      },
    ],
  }),
);
const service = await startService(
  loadConfig(
    {},
    {
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dir,
      ARCHIVIST_BOOTSTRAP_FILE: join(dir, "bootstrap-in.json"),
      LOG_LEVEL: "silent",
      // The bench runs the pass itself, at known times.
      ARCHIVIST_STATISTICS_INTERVAL_MS: "0",
    },
  ),
);
try {
  await measure();
} finally {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
}

async function measure(): Promise<void> {
  const db = service.ctx.db;
  const url = service.url;
  const tokenAnswer = await fetch(`${url}/archivist/iam/v1/appidp/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", ...owner }),
  });
  const token = ((await tokenAnswer.json()) as { access_token: string }).access_token;
  const post = (path: string, json: unknown) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(json),
    });
  const made = await post("/archivist/v2/assets", { attributes: { arc_display_type: "vcon" } });
  const asset = ((await made.json()) as { identity: string }).identity;
  let n = 0;
  const event = () => ({
    operation: "Record",
    behaviour: "RecordEvidence",
    event_attributes: {
      arc_display_type: "vcon_created",
      vcon_operation: "vcon_created",
      subject: `vcon://${randomUUID()}`,
      payload: Buffer.alloc(32, n++ % 256).toString("hex"),
      payload_hash_alg: "SHA-256",
      payload_preimage_content_type: "application/vcon+json",
      timestamp_declared: "2026-11-01T00:00:00Z",
      vcon_draft_version: "01",
      scitt_draft_version: "10",
    },
  });
  const first = (await (await post(`/archivist/v2/${asset}/events`, event())).json()) as { identity: string };
  const template = first.identity.split("/").pop() as string;

  let started = performance.now();
  for (let at = 1; at <= SEED; at += 50_000) {
    const to = Math.min(SEED, at + 49_999);
    await db.query(
      `insert into asset_events (id, asset_id, tenant_id, operation, behaviour, event_attributes, asset_attributes,
         timestamp_declared, timestamp_accepted, timestamp_committed, principal_declared, principal_accepted,
         confirmation_status, proof_mechanism, public)
       select gen_random_uuid(), e.asset_id, e.tenant_id, e.operation, e.behaviour,
         e.event_attributes || jsonb_build_object('subject', 'vcon://' || gen_random_uuid(), 'payload', md5(g::text) || md5((g + 1)::text)),
         e.asset_attributes, e.timestamp_declared, e.timestamp_accepted + g * interval '1 ms', e.timestamp_accepted + g * interval '1 ms',
         e.principal_declared, e.principal_accepted, 'COMMITTED', e.proof_mechanism, e.public
       from asset_events e, generate_series($2::bigint, $3::bigint) g where e.id = $1`,
      [template, at, to],
    );
    await db.query(
      `insert into log_entries (tenant_id, mmr_index, leaf_index, kind, record_id, idtimestamp, leaf)
       select $1, 2 * g, g, 'asset_event', gen_random_uuid(), lpad(to_hex(g), 16, '0'), sha256(g::text::bytea)
       from generate_series($2::bigint, $3::bigint) g`,
      [other, at, to],
    );
    await db.query(
      `insert into mmr_nodes (tenant_id, idx, hash) select $1, g, sha256(g::text::bytea)
       from generate_series(2 * $2::bigint, 2 * $3::bigint + 1) g`,
      [other, at, to],
    );
    await db.query(
      `insert into tlog_nodes (tenant_id, level, idx, hash) select $1, 0, g, sha256(g::text::bytea)
       from generate_series($2::bigint, $3::bigint) g`,
      [other, at, to],
    );
  }
  await ours.analyzeStale(db);
  say(`seeded ${SEED} events in ${Math.round(performance.now() - started)} ms`);

  const statements: Array<{ sql: string; ms: number }> = [];
  const timing = (on: Queryable): Queryable => ({
    async query<R>(sql: string, params?: readonly unknown[]) {
      const s = performance.now();
      const r = await on.query<R>(sql, params);
      if (sql.startsWith("analyze")) statements.push({ sql, ms: performance.now() - s });
      return r;
    },
  });
  const timed: Pick<Db, "query" | "transaction"> = {
    ...timing(db),
    transaction: (fn) => db.transaction((tx) => fn(timing(tx))),
  };
  const markStale = () =>
    db.query(
      `update pg_class set relpages = relpages / 2, reltuples = reltuples / 2
        where relkind = 'r' and relpages > 64 and relnamespace = (select oid from pg_namespace where nspname = current_schema())`,
    );

  const requests: Array<{ start: number; end: number; ok: boolean }> = [];
  const passes: Array<{ start: number; end: number }> = [];
  let running = true;
  const writer = async () => {
    while (running) {
      const start = performance.now();
      const ok = await post(`/archivist/v2/${asset}/events`, event()).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status === 200;
        },
        () => false,
      );
      requests.push({ start, end: performance.now(), ok });
    }
  };
  const writers = Array.from({ length: CONCURRENCY }, writer);
  for (let pass = 0; pass < PASSES; pass++) {
    await new Promise((r) => setTimeout(r, ROUND_MS / 2));
    await markStale();
    statements.length = 0;
    started = performance.now();
    await analyzeStale(timed);
    passes.push({ start: started, end: performance.now() });
    const longest = statements.reduce((a, b) => (b.ms > a.ms ? b : a), { sql: "", ms: 0 });
    say(
      `pass ${pass}: ${Math.round(performance.now() - started)} ms, ${statements.length} statements, longest ${Math.round(longest.ms)} ms (${longest.sql.slice(0, 48)})`,
    );
    await new Promise((r) => setTimeout(r, ROUND_MS / 2));
  }
  running = false;
  await Promise.all(writers);

  const at = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN;
  };
  const overlaps = (r: { start: number; end: number }) =>
    passes.some((p) => r.start < p.end && r.end > p.start);
  const during = requests.filter(overlaps).map((r) => r.end - r.start);
  const outside = requests.filter((r) => !overlaps(r)).map((r) => r.end - r.start);
  const line = (name: string, xs: number[]) =>
    say(
      `${name}: n=${xs.length} p50=${at(xs, 0.5).toFixed(1)} p99=${at(xs, 0.99).toFixed(1)} max=${Math.max(...xs).toFixed(1)} ms`,
    );
  line("writes overlapping a pass", during);
  line("writes outside passes", outside);
  say(
    `failed: ${requests.filter((r) => !r.ok).length}; p99 overlapping / outside: ${(at(during, 0.99) / at(outside, 0.99)).toFixed(2)}`,
  );
}
