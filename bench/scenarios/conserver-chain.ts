import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { pino } from "pino";
import { MemoryDeadLetterStore } from "../../plugins/conserver/dead-letters/delivery-store.js";
import type { DeliveryJob } from "../../plugins/conserver/delivery/job.js";
import { type ConserverMetrics, createConserverMetrics } from "../../plugins/conserver/delivery/metrics.js";
import { TokenSource } from "../../plugins/conserver/delivery/token-source.js";
import { startDeliveryWorker } from "../../plugins/conserver/delivery/worker.js";
import { deleteRedisPrefix } from "../../plugins/conserver/demo/redis-cleanup.js";
import { demoVconsDir } from "../../plugins/conserver/demo/source-dir.js";
import * as archivistLink from "../../plugins/conserver/links/archivist.js";
import { createQueue } from "../../plugins/conserver/queue/factory.js";
import { runConserver } from "../../plugins/conserver/runtime/run-conserver.js";
import { MemoryVconStore } from "../../plugins/conserver/store/memory-store.js";
import { parseVcon } from "../../plugins/conserver/vcon.js";
import type { ProcUsage } from "../proc.js";

/** What `npm run bench -- conserver` passes (bench/scenarios/conserver.ts). */
export interface BenchChainOptions {
  origin: string;
  clientId: string;
  clientSecret: string;
  vcons: number;
  /** New vCons through the chain before the measured passes, so those run warm; reported apart. */
  warmVcons?: number;
  redisUrl: string | undefined;
  /** Starts a CPU reading (the bench's); each pass reports what it read over that pass alone. */
  meter?: () => () => ProcUsage;
}

/** One pass: vCons through the chain, the time, and the delivery's archivist requests. */
export interface BenchPass {
  vcons: number;
  ms: number;
  requests: number;
  /** Deliveries per delivery queue job the worker took (batches of deliveries queued together). */
  deliveriesPerJob?: number;
  /** What `meter` read over the pass. */
  usage?: ProcUsage;
  /** Cores this process (the chain: link runtime, queue, delivery worker) kept busy over the pass. */
  chainCores: number;
}

/**
 * The measurement: new vCons (each one's asset looked up and created), then a later operation
 * on the same vCons through the same workers (their assets known), as a pipeline records a
 * vCon's transcription or redaction after its creation.
 */
export interface BenchChainResult extends BenchPass {
  later: BenchPass;
  /** The warm-up pass (new vCons into a service and chain that have run nothing yet), if any. */
  cold?: BenchPass;
}

/**
 * The passes, one link each: the warm-up's new vCons (a set of their own), then the measured
 * new vCons and the later operation on those same vCons.
 */
const PASSES = [
  { name: "warmup", operation: "created", set: "warm" },
  { name: "created", operation: "created", set: "measured" },
  { name: "transcribed", operation: "transcribed", set: "measured" },
] as const;
type VconSet = (typeof PASSES)[number]["set"];
type Vcons = Record<VconSet, Array<{ uuid: string; text: string }>>;

const SAMPLE = "ietf-core03-ab_call_ext_rec.vcon.json";
// 512 delivery slots and 64 vCons in the link runtime's hands at once. With look-ups, creations
// and queue jobs gathered into groups, the in-flight counts set the group sizes, and the group
// sizes the cost per vCon: at 128 slots and 16 in hand a queue job held ~12 deliveries and the
// slots were the tightest limit (docs/performance.md, issue 35); at 256 and 64 a job holds ~32;
// at 512 the service's groups are larger again, and each new vCon cost 5-10 % less of the machine
// on both engines (issue 35, seventh session, alternated). The worker's own default stays 32,
// the runtime's 1.
const DELIVERY_CONCURRENCY = Number(process.env.CONSERVER_BENCH_CONCURRENCY ?? 512);
const LINK_CONCURRENCY = Number(process.env.CONSERVER_BENCH_LINK_CONCURRENCY ?? 64);
const WAIT_LIMIT_MS = 600_000;

/** `n` distinct vCons: the sample with a fresh uuid each (one new asset per vCon, as in production). */
function makeVcons(n: number): Array<{ uuid: string; text: string }> {
  const sample = readFileSync(join(demoVconsDir(), SAMPLE), "utf8");
  const template = JSON.parse(sample) as Record<string, unknown>;
  return Array.from({ length: n }, () => {
    const uuid = randomUUID();
    return { uuid, text: JSON.stringify({ ...template, uuid }) };
  });
}

async function counted(
  metrics: ConserverMetrics,
  counter: "jobs" | "requests",
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const v of (await metrics[counter].get()).values) {
    const labels = v.labels as Record<string, string | number | undefined>;
    const label = String(labels.outcome ?? labels.route ?? "");
    out.set(label, (out.get(label) ?? 0) + v.value);
  }
  return out;
}

/** Queue jobs the worker has taken so far, and the deliveries they held. */
async function jobsTaken(metrics: ConserverMetrics): Promise<{ jobs: number; deliveries: number }> {
  const values = (await metrics.batchSize.get()).values;
  const total = (suffix: string) =>
    values.filter((v) => v.metricName?.endsWith(suffix)).reduce((a, v) => a + v.value, 0);
  return { jobs: total("_count"), deliveries: total("_sum") };
}

/** Waits for the worker to have handled every job (read from its own metrics, not the service). */
async function untilDelivered(metrics: ConserverMetrics, n: number, deadline: number): Promise<void> {
  for (;;) {
    const jobs = await counted(metrics, "jobs");
    const dead = jobs.get("dead_letter") ?? 0;
    if (dead > 0) throw new Error(`${dead} delivery job(s) dead-lettered`);
    const done = (jobs.get("delivered") ?? 0) + (jobs.get("duplicate") ?? 0);
    if (done >= n) return;
    if (Date.now() > deadline) throw new Error(`only ${done} of ${n} vCon events delivered in time`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Waits until none of the run's events (tagged by its unique link name) is still uncommitted.
 * One small page per poll: newest first, so while events are pending the scan stops at the first.
 */
async function untilCommitted(origin: string, tokens: TokenSource, linkName: string, deadline: number) {
  const q = new URLSearchParams([
    ["event_attributes.conserver_link_name", linkName],
    ["confirmation_status", "STORED"],
    ["confirmation_status", "PENDING"],
    ["page_size", "1"],
  ]);
  for (;;) {
    const res = await fetch(`${origin}/archivist/v2/assets/-/events?${q}`, {
      headers: { authorization: `Bearer ${await tokens.get()}` },
    });
    if (res.status !== 200 && res.status !== 206) throw new Error(`listing events answered ${res.status}`);
    const { events } = (await res.json()) as { events?: unknown[] };
    if (!events?.length) return;
    if (Date.now() > deadline) throw new Error("the run's vCon events were not all committed in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Chain {
  /** Per pass: the link's unique name, by which its events are found in the service. */
  linkNames: string[];
  metrics: ConserverMetrics;
  /** Hands every vCon of `PASSES[pass]`'s set to its link. */
  start(pass: number): Promise<void>;
  close(): Promise<void>;
}

/** Through Redis: vCons stored as `vcon:<uuid>`, uuids pushed on the ingress list, the link runtime and BullMQ. */
async function throughRedis(o: BenchChainOptions, vcons: Vcons): Promise<Chain> {
  const redisUrl = o.redisUrl as string;
  const run = `bench-${randomBytes(4).toString("hex")}`;
  const linkNames = PASSES.map((p) => `${run.replace("-", "_")}_${p.name}`);
  const dir = mkdtempSync(join(tmpdir(), "conserver-bench-"));
  const redis = new Redis(redisUrl);
  const metrics = createConserverMetrics();
  // A variable of the run's own: two chains run at once in `pair`, each into its own service.
  const secretVar = `CONSERVER_BENCH_SECRET_${run.slice("bench-".length)}`;
  process.env[secretVar] = o.clientSecret;
  const backend = `{url: "${o.origin}", client_id: "${o.clientId}", client_secret: "\${${secretVar}}"}`;
  // One chain per pass, each on its own ingress list, all in one runtime and delivery worker.
  writeFileSync(
    join(dir, "conserver.yml"),
    `links:
${PASSES.map((p, i) => `  ${linkNames[i]}:\n    module: archivist\n    options: {vcon_operation: ${p.operation}, backend: ${backend}}`).join("\n")}
chains:
${PASSES.map((p, i) => `  ${p.name}: {links: [${linkNames[i]}], ingress_lists: [${run}-${p.name}], egress_lists: [${run}-out], enabled: 1}`).join("\n")}
delivery: {queue: delivery, prefix: ${run}, concurrency: ${DELIVERY_CONCURRENCY}}
`,
  );
  const stored = redis.pipeline();
  for (const v of [...vcons.warm, ...vcons.measured]) stored.set(`${run}:vcon:${v.uuid}`, v.text);
  await stored.exec();
  const running = await runConserver(join(dir, "conserver.yml"), {
    redisUrl,
    log: pino({ level: "warn" }),
    metrics,
    vconKeyPrefix: `${run}:vcon:`,
    linkConcurrency: LINK_CONCURRENCY,
    popTimeoutS: 1,
  });
  return {
    linkNames,
    metrics,
    start: async (pass) => {
      const p = PASSES[pass] as (typeof PASSES)[number];
      const pushed = redis.pipeline();
      for (const v of vcons[p.set]) pushed.rpush(`${run}-${p.name}`, v.uuid);
      await pushed.exec();
    },
    async close() {
      await running.close();
      // Everything the run made: its vCons, queue, claims and dead letters under `<run>:`, and its lists.
      await deleteRedisPrefix(redisUrl, run);
      const lists = PASSES.flatMap((p) => [`${run}-${p.name}`, `DLQ:${run}-${p.name}`]);
      await redis.del(...lists, `${run}-out`);
      await redis.quit();
      rmSync(dir, { recursive: true, force: true });
      delete process.env[secretVar];
    },
  };
}

/** In one process: the memory store, the in-process queue and the delivery worker. */
function inProcess(o: BenchChainOptions, vcons: Vcons): Chain {
  const log = pino({ level: "warn" });
  const run = `bench_${randomBytes(4).toString("hex")}`;
  const linkNames = PASSES.map((p) => `${run}_${p.name}`);
  const metrics = createConserverMetrics();
  const queue = createQueue<DeliveryJob>("bench-delivery", {
    attempts: 5,
    backoff: { type: "exponential", delayMs: 100, maxDelayMs: 2000, jitter: 0.5 },
    log,
  });
  const worker = startDeliveryWorker({
    queue,
    deadLetters: new MemoryDeadLetterStore(),
    concurrency: DELIVERY_CONCURRENCY,
    log,
    metrics,
  });
  const store = new MemoryVconStore();
  for (const v of [...vcons.warm, ...vcons.measured]) store.set(v.uuid, parseVcon(v.text));
  const backend = { url: o.origin, client_id: o.clientId, client_secret: o.clientSecret };
  const ctx = { store, log, defaultHashMode: "python-json" as const, deliveryQueue: queue };
  return {
    linkNames,
    metrics,
    start: async (pass) => {
      const p = PASSES[pass] as (typeof PASSES)[number];
      const options = { vcon_operation: p.operation, backend };
      const linkName = linkNames[pass] as string;
      for (const v of vcons[p.set]) await archivistLink.run(v.uuid, linkName, options, ctx);
    },
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}

/**
 * `conserver` benchmark: `warmVcons` new vCons through the archivist link, the delivery queue and
 * worker into the service at `origin` (the warm-up), then `vcons` more, then a later operation on
 * each of those through the same runtime and worker. Each pass's clock runs from the first vCon
 * handed to the chain (pushed on the ingress list, with Redis) to the last one's event COMMITTED
 * in the service. `requests` counts the worker's archivist API calls (tokens aside).
 */
export async function benchChain(o: BenchChainOptions): Promise<BenchChainResult> {
  const warm = makeVcons(o.warmVcons ?? 0);
  const vcons: Vcons = { warm, measured: makeVcons(o.vcons) };
  const tokens = new TokenSource({ url: o.origin, clientId: o.clientId, clientSecret: o.clientSecret });
  await tokens.get();
  const chain = o.redisUrl ? await throughRedis(o, vcons) : inProcess(o, vcons);
  try {
    const passes: Array<BenchPass | undefined> = [];
    let requestsBefore = 0;
    let takenBefore = { jobs: 0, deliveries: 0 };
    let jobsBefore = 0;
    for (let pass = 0; pass < PASSES.length; pass++) {
      const n = vcons[(PASSES[pass] as (typeof PASSES)[number]).set].length;
      if (n === 0) {
        passes.push(undefined);
        continue;
      }
      const stop = o.meter?.();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const deadline = Date.now() + WAIT_LIMIT_MS;
      await chain.start(pass);
      // Job counts accumulate over the passes: this one is done when all of its own are.
      jobsBefore += n;
      await untilDelivered(chain.metrics, jobsBefore, deadline);
      await untilCommitted(o.origin, tokens, chain.linkNames[pass] as string, deadline);
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const chainCores = ms > 0 ? (cpu.user + cpu.system) / 1000 / ms : 0;
      const requests = [...(await counted(chain.metrics, "requests")).values()].reduce((a, b) => a + b, 0);
      const taken = await jobsTaken(chain.metrics);
      const jobs = taken.jobs - takenBefore.jobs;
      passes.push({
        vcons: n,
        ms,
        requests: requests - requestsBefore,
        ...(jobs > 0 ? { deliveriesPerJob: (taken.deliveries - takenBefore.deliveries) / jobs } : {}),
        usage: stop?.(),
        chainCores,
      });
      requestsBefore = requests;
      takenBefore = taken;
    }
    const [cold, first, later] = passes as [BenchPass | undefined, BenchPass, BenchPass];
    return { ...first, later, ...(cold ? { cold } : {}) };
  } finally {
    await chain.close();
  }
}
