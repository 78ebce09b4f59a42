import { drainBacklog, drainRow } from "../backlog.js";
import { haproxyInstalled, startHaproxy } from "../load-balancer.js";
import type { LoadResult } from "../load-spec.js";
import { runLoadProcess } from "../loadgen-client.js";
import { type PgReplica, startPgReplica } from "../pg-replica.js";
import { meter } from "../proc.js";
import { createAsset, postEvent } from "../records.js";
import type { Scenario, ScenarioContext } from "../scenario.js";
import type { Deployment } from "../service.js";

// The ingest scenario's event (a vCon operation), unique per request.
const EVENT = JSON.stringify({
  operation: "Record",
  behaviour: "RecordEvidence",
  event_attributes: {
    arc_display_type: "vcon_created",
    subject: "vcon://scaleout-{{n}}",
    payload: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    payload_hash_alg: "SHA-256",
  },
});
/** Events of the asset whose trail the balanced shape's reads list. */
const READ_EVENTS = 60;
/** Requests in flight in all, shared by the API processes. */
const IN_FLIGHT = 128;

interface Shape {
  label: string;
  origins: string[];
  /** Every process of the deployment (APIs and workers): their CPU is the deployment's. */
  pids: number[];
  /** Each process's role, for the per-process cost (CPU and memory per role). */
  roles?: string[];
}

/**
 * How long a shape's drain waits for the asset's STORED events. Every shape posts to one asset,
 * so each drain also counts what an earlier shape left: the last drain ending at 0 says every
 * event the run accepted was committed. Long enough for a committer on a loaded machine; what is
 * left after it is a backlog no committer took in minutes, not a slow one.
 */
const DRAIN_MS = 300_000;
const DRAIN_QUICK_MS = 60_000;

/** Events at saturation against every API process at once (one load generator each), then the committers' catch-up. */
async function saturate(ctx: ScenarioContext, shape: Shape, token: string, asset: string) {
  const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
  const per = Math.max(1, Math.floor(IN_FLIGHT / shape.origins.length));
  ctx.log(`scaleout ${shape.label}: ${ctx.opts.durationS}s, ${IN_FLIGHT} in flight`);
  const meters = shape.pids.map((pid) => meter(pid));
  const results: LoadResult[] = await Promise.all(
    shape.origins.map((origin, i) =>
      runLoadProcess({
        label: `scaleout ${shape.label} #${i + 1}`,
        origin,
        connections: Math.min(per, 64),
        concurrency: per,
        requests: [{ method: "POST", path: `/archivist/v2/${asset}/events`, headers, body: EVENT }],
        durationMs: ctx.opts.durationS * 1000,
        maxRequests: 2_000_000,
        warmupMs: ctx.opts.quick ? 300 : 1000,
      }),
    ),
  );
  const usage = meters.map((stop) => stop());
  const rate = results.reduce((a, r) => a + r.throughput, 0);
  perRole(ctx, shape, usage, rate);
  const errors = results.reduce((a, r) => a + r.errors, 0);
  const firstError = results.find((r) => r.firstError)?.firstError?.slice(0, 120);
  const cores = usage.reduce((a, u) => a + (u.cores ?? 0), 0);
  const add = ctx.results.add.bind(ctx.results);
  add(
    "scaleout",
    `${shape.label}: events/s`,
    rate,
    "events/s",
    undefined,
    errors ? `${errors} errors; first: ${firstError}` : undefined,
  );
  add("scaleout", `${shape.label}: p99`, Math.max(...results.map((r) => r.latency.p99)), "ms");
  add("scaleout", `${shape.label}: CPU of its processes`, cores, "cores");
  add("scaleout", `${shape.label}: machine CPU`, usage[0]?.machineCores ?? null, "cores");
  if (rate > 0) add("scaleout", `${shape.label}: CPU per event`, (cores * 1000) / rate, "ms");
  // Every accepted event must reach the log: the workers' catch-up is part of the shape's rate.
  const dr = await drainBacklog(
    shape.origins[0] as string,
    token,
    `/archivist/v2/${asset}/events`,
    ctx.opts.quick ? DRAIN_QUICK_MS : DRAIN_MS,
  );
  const row = drainRow(dr);
  add("scaleout", `${shape.label}: committer catch-up`, row.value, "events/s", undefined, row.note);
  return rate;
}

/** CPU (per 1,000 events/s) and peak memory of each role's processes: the per-process cost. */
function perRole(
  ctx: ScenarioContext,
  shape: Shape,
  usage: ReturnType<ReturnType<typeof meter>>[],
  rate: number,
) {
  if (!shape.roles) return;
  for (const role of new Set(shape.roles)) {
    const mine = usage.filter((_, i) => shape.roles?.[i] === role);
    const cores = mine.reduce((a, u) => a + (u.cores ?? 0), 0);
    const label = `${shape.label}: ${role} (${mine.length})`;
    ctx.results.add("scaleout", `${label} CPU`, cores, "cores");
    if (rate > 0)
      ctx.results.add("scaleout", `${label} CPU per 1,000 events/s`, (cores * 1000) / rate, "cores");
    const rss = mine.map((u) => u.peakRssMiB ?? 0);
    ctx.results.add("scaleout", `${label} peak RSS per process`, Math.max(...rss), "MiB");
  }
}

const METRICS_TOKEN = "bench-metrics";

/** Reads each API process sent to the replica and to the primary (`archivist_replica_reads_total`). */
async function servedBy(origins: string[]): Promise<{ replica: number; primary: number }> {
  const total = { replica: 0, primary: 0 };
  for (const origin of origins) {
    const text = await (
      await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    for (const side of ["replica", "primary"] as const)
      total[side] += Number(
        new RegExp(`^archivist_replica_reads_total\\{served_by="${side}"\\} (\\d+)$`, "m").exec(text)?.[1] ??
          0,
      );
  }
  return total;
}

/** How many API and worker processes the balanced shape runs (BENCH_SCALEOUT_APIS, _WORKERS). */
const count = (name: string, fallback: number) => Math.max(1, Number(process.env[name]) || fallback);

/**
 * The deployment of docs/scaling.md on loopback: N API processes behind HAProxy (one address),
 * M worker processes, the PostgreSQL primary and a streaming replica of it (DATABASE_READ_URL),
 * Redis when the run has it, blobs in the shared data directory. Ingest at saturation through
 * the balancer, then list reads through it, counting what the replica served.
 */
async function balanced(
  ctx: ScenarioContext,
  d: Deployment,
  token: string,
  assets: { ingest: string; reads: string },
  one: number,
) {
  const asset = assets.ingest;
  const apiCount = count("BENCH_SCALEOUT_APIS", 2);
  const workerCount = count("BENCH_SCALEOUT_WORKERS", 2);
  const label = `${apiCount} API behind haproxy + ${workerCount} workers + replica`;
  if (!haproxyInstalled()) {
    ctx.results.na("scaleout", label, "haproxy is not installed (apt-get install haproxy)");
    return;
  }
  const admin = ctx.opts.databaseUrl as string;
  const db = d.db;
  if (!db) return;
  let replica: PgReplica | undefined;
  try {
    replica = await startPgReplica(admin);
  } catch (err) {
    ctx.results.na("scaleout", label, `no replica: ${(err as Error).message.slice(0, 160)}`);
    return;
  }
  let lb: Awaited<ReturnType<typeof startHaproxy>> | undefined;
  try {
    const env = { DATABASE_READ_URL: replica.urlOf(db.url), ARCHIVIST_METRICS_TOKEN: METRICS_TOKEN };
    const apis = [];
    for (let i = 0; i < apiCount; i++) apis.push(await d.startExtra("api", env));
    const workers = [];
    for (let i = 0; i < workerCount; i++) workers.push(await d.startExtra("worker", env));
    lb = await startHaproxy(apis.map((a) => a.origin));
    const shape: Shape = {
      label,
      origins: [lb.origin],
      pids: [...apis, ...workers, { pid: lb.pid }].map((p) => p.pid),
      roles: [...apis.map(() => "API"), ...workers.map(() => "worker"), "haproxy"],
    };
    const rate = await saturate(ctx, shape, token, asset);
    if (one > 0) ctx.results.add("scaleout", `${label} ÷ 1 process`, rate / one, "×");
    // Reads through the balancer: the first page of a vCon's trail (its READ_EVENTS events), which
    // the replica serves once it has replayed what the primary has flushed.
    const origins = apis.map((a) => a.origin);
    const before = await servedBy(origins);
    const meters = shape.pids.map((pid) => meter(pid));
    const reads = await runLoadProcess({
      label: `scaleout ${label} reads`,
      origin: lb.origin,
      connections: 32,
      concurrency: 32,
      requests: [
        {
          method: "GET",
          path: `/archivist/v2/${assets.reads}/events?page_size=50`,
          headers: { authorization: `Bearer ${token}` },
        },
      ],
      durationMs: ctx.opts.durationS * 1000,
      maxRequests: 2_000_000,
      warmupMs: ctx.opts.quick ? 300 : 1000,
    });
    const usage = meters.map((stop) => stop());
    const after = await servedBy(origins);
    const add = ctx.results.add.bind(ctx.results);
    add(
      "scaleout",
      `${label}: list reads/s`,
      reads.throughput,
      "req/s",
      undefined,
      reads.errors ? `${reads.errors} errors; first: ${reads.firstError?.slice(0, 120)}` : undefined,
    );
    add("scaleout", `${label}: list p99`, reads.latency.p99, "ms");
    const onReplica = after.replica - before.replica;
    const onPrimary = after.primary - before.primary;
    add("scaleout", `${label}: list statements on the replica`, onReplica, "statements");
    add("scaleout", `${label}: list statements on the primary`, onPrimary, "statements");
    if (onReplica + onPrimary > 0)
      add(
        "scaleout",
        `${label}: replica's share of the list statements`,
        (100 * onReplica) / (onReplica + onPrimary),
        "%",
      );
    add("scaleout", `${label}: reads' machine CPU`, usage[0]?.machineCores ?? null, "cores");
    perRole(ctx, { ...shape, label: `${label} reads` }, usage, 0);
  } finally {
    await lb?.stop();
    await d.stop();
    await replica.close();
  }
}

/**
 * `scaleout` (PostgreSQL): ingest at saturation against one process (API and workers), then
 * against two API processes (`serve --no-workers`) beside two worker processes (`worker`) on the
 * same database, then the balanced deployment of docs/scaling.md (`balanced`).
 */
export const scaleout: Scenario = {
  name: "scaleout",
  async run(ctx) {
    if (!ctx.opts.databaseUrl) {
      ctx.results.na("scaleout", "two API and two worker processes", "PostgreSQL only (DATABASE_URL)");
      return;
    }
    const d = await ctx.service();
    const token = await d.token();
    const asset = await createAsset(d, token, "scaleout");
    const reads = await createAsset(d, token, "scaleout-reads");
    for (let i = 0; i < READ_EVENTS; i++) await postEvent(d, token, reads, { n: String(i) });
    const one = await saturate(ctx, { label: "1 process", origins: [d.origin], pids: [d.pid] }, token, asset);
    await d.stopMain();
    const apis = [await d.startExtra("api"), await d.startExtra("api")];
    const workers = [await d.startExtra("worker"), await d.startExtra("worker")];
    const shape = {
      label: "2 API + 2 worker processes",
      origins: apis.map((a) => a.origin),
      pids: [...apis, ...workers].map((p) => p.pid),
    };
    const two = await saturate(ctx, shape, token, asset);
    if (one > 0) ctx.results.add("scaleout", "2 API + 2 workers ÷ 1 process", two / one, "×");
    await d.stop();
    await balanced(ctx, d, token, { ingest: asset, reads }, one);
  },
};
