import { Pool } from "undici";
import type { LoadResult, LoadSample, LoadSpec, RequestTemplate } from "./load-spec.js";
import { summarize } from "./stats.js";

/** Counts and latencies of the requests that fall in the measured window. */
class Recorder {
  readonly latencies: number[] = [];
  readonly statuses: Record<string, number> = {};
  readonly samples: LoadSample[] = [];
  ok = 0;
  errors = 0;
  lastDone = 0;
  firstError: string | undefined;

  constructor(private readonly spec: LoadSpec) {}

  done(status: string, success: boolean, latencyMs: number, body: () => string, sentAt: number): void {
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    this.lastDone = performance.now();
    if (!success) {
      this.errors++;
      this.firstError ??= `${status}: ${body().slice(0, 300)}`;
      return;
    }
    this.ok++;
    this.latencies.push(latencyMs);
    const s = this.spec.sample;
    if (s && this.ok % s.every === 0 && this.samples.length < s.max) {
      const value = (JSON.parse(body()) as Record<string, unknown>)[s.field];
      if (typeof value === "string") this.samples.push({ value, sentAt });
    }
  }
}

/**
 * A request's path and body for sequence number `n`. A base64 body is decoded once per template
 * (the hostile gzip bomb is ~270 kB of base64): the generator shares the server's two cores, and
 * its own waste would count against the server in the hostile ratio.
 */
function filler(): (t: RequestTemplate, n: number) => { path: string; body: string | Buffer | undefined } {
  const decoded = new Map<RequestTemplate, Buffer>();
  return (t, n) => {
    const seq = String(n);
    let body: string | Buffer | undefined;
    if (t.bodyBase64 !== undefined) {
      body = decoded.get(t) ?? Buffer.from(t.bodyBase64, "base64");
      decoded.set(t, body);
    } else body = t.body?.replaceAll("{{n}}", seq);
    return { path: t.path.replaceAll("{{n}}", seq), body };
  };
}

/** Drives load as the spec says and returns what was measured (runs in the load-generator process). */
export async function runLoad(spec: LoadSpec, progress: (line: string) => void): Promise<LoadResult> {
  const pool = new Pool(spec.origin, {
    connections: spec.connections,
    pipelining: 1,
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
    ...(spec.localAddress ? { localAddress: spec.localAddress } : {}),
  });
  const okStatus = new Set(spec.okStatus ?? [200]);
  const rec = new Recorder(spec);
  const epoch = Date.now() - performance.now();
  const start = performance.now();
  const warmEnd = start + spec.warmupMs;
  const end = warmEnd + spec.durationMs;
  let issued = 0;
  const fill = filler();
  const one = async (intended: number): Promise<void> => {
    const n = issued++;
    const template = spec.requests[n % spec.requests.length] as RequestTemplate;
    const { path, body } = fill(template, n);
    const counted = intended >= warmEnd;
    let status = "network";
    let text = () => "";
    let success = false;
    try {
      const res = await pool.request({ method: template.method, path, headers: template.headers, body });
      const bytes = Buffer.from(await res.body.arrayBuffer());
      status = String(res.statusCode);
      success = okStatus.has(res.statusCode);
      text = () => bytes.toString("utf8");
    } catch (err) {
      text = () => (err as Error).message;
    }
    if (counted) rec.done(status, success, performance.now() - intended, text, epoch + intended);
  };
  const timer = setInterval(() => {
    const s = (performance.now() - start) / 1000;
    progress(`${s.toFixed(0)}s sent ${issued} ok ${rec.ok} errors ${rec.errors}`);
  }, 2000);
  const more = () => performance.now() < end && issued < spec.maxRequests;
  let late = 0;
  try {
    if (spec.rate) late = await openLoop(spec, start, end, one, () => issued < spec.maxRequests);
    else
      await Promise.all(
        Array.from({ length: spec.concurrency }, async () => {
          while (more()) await one(performance.now());
        }),
      );
  } finally {
    clearInterval(timer);
    await pool.close();
  }
  const measuredMs = Math.max(1, (rec.lastDone || end) - warmEnd);
  return {
    label: spec.label,
    completed: rec.ok + rec.errors,
    ok: rec.ok,
    errors: rec.errors,
    statuses: rec.statuses,
    ...(rec.firstError ? { firstError: rec.firstError } : {}),
    measuredMs,
    throughput: (rec.ok * 1000) / measuredMs,
    latency: summarize(rec.latencies),
    late,
    samples: rec.samples,
  };
}

/**
 * Sends at a fixed rate whatever the answers do; latency counts from the intended send
 * time, so a stall shows up in the percentiles instead of silently lowering the offered load.
 */
function openLoop(
  spec: LoadSpec,
  start: number,
  end: number,
  one: (intended: number) => Promise<void>,
  budget: () => boolean,
): Promise<number> {
  const interval = 1000 / (spec.rate as number);
  // An entry is "capped" once it had to wait because `concurrency` requests were in flight.
  const backlog: Array<{ at: number; capped: boolean }> = [];
  let next = start;
  let inFlight = 0;
  let late = 0;
  return new Promise((resolve) => {
    const pump = () => {
      const now = performance.now();
      while (next <= now && next < end && budget()) {
        backlog.push({ at: next, capped: false });
        next += interval;
      }
      while (backlog.length > 0 && inFlight < spec.concurrency) {
        const entry = backlog.shift() as { at: number; capped: boolean };
        if (entry.capped) late++;
        inFlight++;
        void one(entry.at).finally(() => {
          inFlight--;
          pump();
        });
      }
      for (const entry of backlog) entry.capped = true;
      const finished = (next >= end || !budget()) && backlog.length === 0;
      if (finished && inFlight === 0) resolve(late);
    };
    // Wakes when the next request is due, not every millisecond: at 100/s that is a tenth of
    // the wake-ups, which the hostile ratio would otherwise charge to the server.
    const tick = () => {
      pump();
      if (next < end && budget()) setTimeout(tick, Math.max(0, next - performance.now()));
    };
    tick();
  });
}
