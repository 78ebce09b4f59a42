import { drainBacklog } from "../backlog.js";
import type { LoadResult } from "../load-spec.js";
import { runLoadProcess } from "../loadgen-client.js";
import { meter } from "../proc.js";
import { createAsset } from "../records.js";
import type { Scenario, ScenarioContext } from "../scenario.js";
import { perSecond } from "../stats.js";

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
/** Requests in flight in all, shared by the API processes. */
const IN_FLIGHT = 128;

interface Shape {
  label: string;
  origins: string[];
  /** Every process of the deployment (APIs and workers): their CPU is the deployment's. */
  pids: number[];
}

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
    ctx.opts.quick ? 15_000 : 120_000,
  );
  if (dr && dr.initial > 0) {
    const done = dr.initial - dr.remaining;
    add(
      "scaleout",
      `${shape.label}: committer catch-up`,
      done ? perSecond(done, dr.ms) : null,
      "events/s",
      undefined,
      dr.remaining ? `${dr.remaining} of ${dr.initial} still STORED` : `${dr.initial} events`,
    );
  }
  return rate;
}

/**
 * `scaleout` (PostgreSQL): ingest at saturation against one process (API and workers), then
 * against two API processes (`serve --no-workers`) beside two worker processes (`worker`) on the
 * same database, as docs/scaling.md deploys past one process.
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
  },
};
