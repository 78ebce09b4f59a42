import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { pino } from "pino";
import { createQueue } from "../../src/queue/factory.js";
import { MemoryDeadLetterStore } from "./delivery/dead-letters.js";
import type { DeliveryJob } from "./delivery/job.js";
import { TokenSource } from "./delivery/token-source.js";
import { startDeliveryWorker } from "./delivery/worker.js";
import * as archivistLink from "./links/archivist.js";
import { runConserver } from "./runtime/run-conserver.js";
import { MemoryVconStore } from "./store/memory-store.js";
import { parseVcon } from "./vcon/parse.js";

/** What `npm run bench -- conserver` passes (bench/scenarios/conserver.ts). */
export interface BenchChainOptions {
  origin: string;
  clientId: string;
  clientSecret: string;
  vcons: number;
  redisUrl: string | undefined;
}

const SAMPLE = "ietf-core03-ab_call_ext_rec.vcon.json";
const DELIVERY_CONCURRENCY = 64;
const LINK_CONCURRENCY = 16;
const WAIT_LIMIT_MS = 600_000;

// The sample vCons ship beside the sources; from dist/ they are read from the source tree.
function sampleText(): string {
  const here = fileURLToPath(new URL(".", import.meta.url));
  const dir = here.replace(/([/\\])dist([/\\])plugins/, "$1plugins");
  return readFileSync(join(dir, "demo", "vcons", SAMPLE), "utf8");
}

/** `n` distinct vCons: the sample with a fresh uuid each (one new asset per vCon, as in production). */
function makeVcons(n: number): Array<{ uuid: string; text: string }> {
  const template = JSON.parse(sampleText()) as Record<string, unknown>;
  return Array.from({ length: n }, () => {
    const uuid = randomUUID();
    return { uuid, text: JSON.stringify({ ...template, uuid }) };
  });
}

/** Committed vCon events of the tenancy (an exact count), to tell when the chain's work has landed. */
async function committedVconEvents(origin: string, token: string): Promise<number> {
  const q = new URLSearchParams({
    "event_attributes.vcon_operation": "vcon_created",
    minimum_trust: "COMMITTED",
    page_size: "1",
  });
  const res = await fetch(`${origin}/archivist/v2/assets/-/events?${q}`, {
    headers: { authorization: `Bearer ${token}`, "x-request-total-count": "true" },
  });
  if (res.status !== 200 && res.status !== 206) throw new Error(`counting events answered ${res.status}`);
  return Number(res.headers.get("x-total-count") ?? "0");
}

async function untilCommitted(origin: string, token: () => Promise<string>, target: number): Promise<void> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const n = await committedVconEvents(origin, await token());
    if (n >= target) return;
    if (Date.now() > deadline) throw new Error(`only ${n} of ${target} vCon events committed in time`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Through Redis: vCons stored as `vcon:<uuid>`, uuids pushed on the ingress list, the link runtime and BullMQ. */
async function throughRedis(o: BenchChainOptions, vcons: Array<{ uuid: string; text: string }>) {
  const run = `bench-${randomBytes(4).toString("hex")}`;
  const dir = mkdtempSync(join(tmpdir(), "conserver-bench-"));
  const redis = new Redis(o.redisUrl as string);
  process.env.CONSERVER_BENCH_SECRET = o.clientSecret;
  writeFileSync(
    join(dir, "conserver.yml"),
    `links:
  archivist:
    module: archivist
    options:
      vcon_operation: created
      backend: {url: "${o.origin}", client_id: "${o.clientId}", client_secret: "\${CONSERVER_BENCH_SECRET}"}
chains:
  main: {links: [archivist], ingress_lists: [${run}-in], egress_lists: [${run}-out], enabled: 1}
delivery: {queue: ${run}-delivery, prefix: ${run}, concurrency: ${DELIVERY_CONCURRENCY}}
`,
  );
  const keyPrefix = `${run}:vcon:`;
  const stored = redis.pipeline();
  for (const v of vcons) stored.set(`${keyPrefix}${v.uuid}`, v.text);
  await stored.exec();
  const running = await runConserver(join(dir, "conserver.yml"), {
    redisUrl: o.redisUrl as string,
    log: pino({ level: "warn" }),
    vconKeyPrefix: keyPrefix,
    linkConcurrency: LINK_CONCURRENCY,
    popTimeoutS: 1,
  });
  return {
    start: async () => {
      const pushed = redis.pipeline();
      for (const v of vcons) pushed.rpush(`${run}-in`, v.uuid);
      await pushed.exec();
    },
    async close() {
      await running.close();
      const keys = await redis.keys(`${run}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** In one process: the memory store, the in-process queue and the delivery worker. */
function inProcess(o: BenchChainOptions, vcons: Array<{ uuid: string; text: string }>) {
  const log = pino({ level: "warn" });
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
  });
  const store = new MemoryVconStore();
  for (const v of vcons) store.set(v.uuid, parseVcon(new TextEncoder().encode(v.text)));
  const options = {
    vcon_operation: "created",
    backend: { url: o.origin, client_id: o.clientId, client_secret: o.clientSecret },
  };
  const ctx = { store, log, defaultHashMode: "python-json" as const, deliveryQueue: queue };
  return {
    start: async () => {
      for (const v of vcons) await archivistLink.run(v.uuid, "archivist", options, ctx);
    },
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}

/**
 * `conserver` benchmark: `vcons` new vCons through the archivist link, the delivery queue and
 * worker into the service at `origin`; the clock runs from the first vCon handed to the chain
 * (pushed on the ingress list, with Redis) to the last one's event COMMITTED in the service.
 */
export async function benchChain(o: BenchChainOptions): Promise<{ vcons: number; ms: number }> {
  const vcons = makeVcons(o.vcons);
  const tokens = new TokenSource(
    { url: o.origin, clientId: o.clientId, clientSecret: o.clientSecret },
    fetch,
  );
  const before = await committedVconEvents(o.origin, await tokens.get());
  const chain = o.redisUrl ? await throughRedis(o, vcons) : inProcess(o, vcons);
  try {
    const t0 = performance.now();
    await chain.start();
    await untilCommitted(o.origin, () => tokens.get(), before + o.vcons);
    return { vcons: o.vcons, ms: performance.now() - t0 };
  } finally {
    await chain.close();
  }
}
