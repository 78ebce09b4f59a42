import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { dlqList, dlqRetry } from "../../../plugins/conserver/dead-letters/delivery-redrive.js";
import { RedisDeadLetterStore } from "../../../plugins/conserver/dead-letters/delivery-store.js";
import {
  type DeliveryBackend,
  type DeliveryJob,
  idempotencyKey,
} from "../../../plugins/conserver/delivery/job.js";
import { createConserverMetrics } from "../../../plugins/conserver/delivery/metrics.js";
import { type DeliveryWorker, startDeliveryWorker } from "../../../plugins/conserver/delivery/worker.js";
import { BullJobQueue } from "../../../plugins/conserver/queue/index.js";
import { buildVconEvent } from "../../../plugins/conserver/template.js";
import { parseVcon } from "../../../plugins/conserver/vcon.js";
import { deleteKeys, REDIS_URL, redisUp, serveFake, uniqueName, until } from "./redis-env.js";

const up = await redisUp();
const log = pino({ level: "silent" });

describe.skipIf(!up)("delivery through BullMQ into an archivist API", () => {
  const prefix = uniqueName("dlv");
  let redis: Redis;
  let backend: Awaited<ReturnType<typeof serveFake>>;
  let backendRef: DeliveryBackend;
  const workers: DeliveryWorker[] = [];
  const queues: BullJobQueue<DeliveryJob>[] = [];

  const queue = (name: string) => {
    const q = new BullJobQueue<DeliveryJob>(name, {
      redisUrl: REDIS_URL,
      prefix,
      attempts: 3,
      backoff: { type: "fixed", delayMs: 30 },
      lockDurationMs: 800,
      stalledIntervalMs: 300,
    });
    queues.push(q);
    return q;
  };
  const worker = (name: string, dead: RedisDeadLetterStore, concurrency = 3) => {
    const w = startDeliveryWorker({
      queue: queue(name),
      deadLetters: dead,
      concurrency,
      log,
      metrics: createConserverMetrics(),
      retry: { baseDelayMs: 5, maxDelayMs: 20, inlineRetries: 1 },
    });
    workers.push(w);
    return w;
  };
  const job = (uuid: string): DeliveryJob => {
    const doc = parseVcon(JSON.stringify({ uuid, parties: [], created_at: "2024-01-01T00:00:00Z" }));
    const event = buildVconEvent(doc, "created", { link: "archivist", linkName: "t", hashMode: "raw" });
    const a = event.event_attributes;
    return {
      idempotencyKey: idempotencyKey(uuid, a.vcon_operation as string, a.payload as string),
      vconUuid: uuid,
      event,
      backend: backendRef,
    };
  };
  const idle = async (q: BullJobQueue<DeliveryJob>) => {
    const c = await q.counts();
    return c.waiting + c.delayed + c.active === 0;
  };

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    backend = await serveFake();
    backendRef = { url: backend.url, clientId: "client-1", clientSecret: "secret-1" };
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.close({ force: true });
    for (const q of queues.splice(0)) await q.close({ force: true });
    backend.fake.hold = undefined;
  });
  afterAll(async () => {
    await backend?.close();
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it("records every event exactly once when a worker dies mid-run and another takes over", async () => {
    const name = uniqueName("crash");
    const dead = new RedisDeadLetterStore(redis, `${prefix}:dlq:${name}`);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let held = 0;
    backend.fake.hold = async (route) => {
      if (route === "events.create" && held < 3) {
        held += 1;
        await gate;
      }
    };
    const listsBefore = backend.fake.count("events.list");
    const createsBefore = backend.fake.count("events.create");
    const producer = queue(name);
    const uuids = Array.from({ length: 10 }, (_, i) => `crash-${name}-${i}`);
    const first = worker(name, dead);
    for (const u of uuids) await producer.add("deliver", job(u), { jobId: job(u).idempotencyKey });
    // Three jobs at once, but a worker has at most two event requests to a backend in flight (its
    // batches' limit): the third job's post may wait behind them.
    await until(() => held >= 2, 8000, "event posts in flight");
    // The worker dies with posts in flight; the backend still completes them.
    await first.close({ force: true });
    const inFlight = held;
    release();
    await until(
      () =>
        backend.fake.events.filter((e) => String(e.event_attributes.subject).includes(name)).length >=
        inFlight,
    );
    worker(name, dead);
    const mine = () => backend.fake.events.filter((e) => String(e.event_attributes.subject).includes(name));
    await until(
      async () => mine().length >= 10 && (await idle(producer)),
      15000,
      "all events after takeover",
    );
    expect(
      mine()
        .map((e) => e.event_attributes.subject)
        .sort(),
    ).toEqual(uuids.map((u) => `vcon://${u}`).sort());
    // The three interrupted jobs ran again in a worker that had not created their assets, so they
    // looked their events up and found those recorded: 10 posts in all (a post still waiting when
    // its worker died is never sent: its job's signal ended with it). (A delivery that has just created
    // the vCon's asset skips the look-up: that asset cannot hold the event yet.)
    expect(backend.fake.count("events.list") - listsBefore).toBeGreaterThanOrEqual(3);
    expect(backend.fake.count("events.create") - createsBefore).toBe(10);
    expect(await dead.size()).toBe(0);
  });

  it("waits out 429 with Archivist-Rate-Limit-Reset and 503, then records once", async () => {
    const name = uniqueName("limits");
    const dead = new RedisDeadLetterStore(redis, `${prefix}:dlq:${name}`);
    const fake = backend.fake;
    const before = fake.count("events.create");
    // 429 waited in place; two 503s exhaust one attempt's inline retry, so the queue retries the job.
    fake.fault(
      "events.create",
      { status: 429, headers: { "archivist-rate-limit-reset": "0.3" } },
      { status: 503 },
      { status: 503 },
    );
    const producer = queue(name);
    worker(name, dead);
    const t0 = Date.now();
    const j = job(`limits-${name}`);
    await producer.add("deliver", j, { jobId: j.idempotencyKey });
    await until(
      async () =>
        fake.events.some((e) => e.event_attributes.payload === j.event.event_attributes.payload) &&
        (await idle(producer)),
      8000,
      "event after faults",
    );
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    expect(fake.count("events.create") - before).toBe(4);
    expect(fake.events.filter((e) => e.event_attributes.subject === `vcon://limits-${name}`)).toHaveLength(1);
    expect(await dead.size()).toBe(0);
  });

  it("dead-letters a 400 with its reason and re-drives it", async () => {
    const name = uniqueName("bad");
    const dead = new RedisDeadLetterStore(redis, `${prefix}:dlq:${name}`);
    const fake = backend.fake;
    fake.fault("events.create", {
      status: 400,
      body: { code: 3, message: "event_attributes.x is not allowed" },
    });
    const producer = queue(name);
    worker(name, dead);
    const j = job(`bad-${name}`);
    await producer.add("deliver", j, { jobId: j.idempotencyKey });
    await until(async () => (await dead.size()) === 1 && (await idle(producer)), 8000, "dead letter");
    const [entry] = await dlqList(dead);
    expect(entry).toMatchObject({ id: j.idempotencyKey, status: 400, attempts: 1 });
    expect(entry?.reason).toContain("event_attributes.x is not allowed");
    expect(entry?.job.backend.clientSecret).toBe("***");
    expect(fake.events.some((e) => e.event_attributes.subject === `vcon://bad-${name}`)).toBe(false);
    expect(await dlqRetry(dead, producer)).toEqual([j.idempotencyKey]);
    await until(
      () => fake.events.some((e) => e.event_attributes.subject === `vcon://bad-${name}`),
      8000,
      "re-driven event",
    );
    expect(await dead.size()).toBe(0);
  });
});
