import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RedisDeadLetterStore } from "../../../plugins/conserver/dead-letters/delivery-store.js";
import { BATCH_JOB, type DeliveryPayload } from "../../../plugins/conserver/delivery/batch.js";
import { RedisDeliveryClaims } from "../../../plugins/conserver/delivery/delivery-claims.js";
import { type DeliveryJob, idempotencyKey } from "../../../plugins/conserver/delivery/job.js";
import { createConserverMetrics } from "../../../plugins/conserver/delivery/metrics.js";
import { type DeliveryWorker, startDeliveryWorker } from "../../../plugins/conserver/delivery/worker.js";
import { BullJobQueue } from "../../../plugins/conserver/queue/index.js";
import { buildVconEvent } from "../../../plugins/conserver/template.js";
import { parseVcon } from "../../../plugins/conserver/vcon.js";
import { deleteKeys, REDIS_URL, redisUp, serveFake, uniqueName, until } from "./redis-env.js";

const up = await redisUp();
const log = pino({ level: "silent" });
const OPS = ["created", "updated", "enhanced", "sent"];
const VCONS = 6;

// Two delivery workers on one BullMQ queue and one backend, each with its own Redis connections,
// asset cache and claims: what two processes share is Redis and the backend, as here.
describe.skipIf(!up)("two delivery workers on the same new vCons", () => {
  const prefix = uniqueName("two");
  let redis: Redis;
  let backend: Awaited<ReturnType<typeof serveFake>>;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    backend = await serveFake();
    // Slow look-ups and creates: both workers are inside find-or-create of a vCon at once.
    backend.fake.hold = (route) =>
      new Promise((r) => setTimeout(r, route === "assets.list" || route === "assets.create" ? 60 : 0));
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  afterAll(async () => {
    await backend?.close();
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  function job(uuid: string, op: string): DeliveryJob {
    const doc = parseVcon(JSON.stringify({ uuid, parties: [], created_at: "2024-01-01T00:00:00Z" }));
    const event = buildVconEvent(doc, op, { link: "archivist", linkName: "t", hashMode: "raw" });
    const a = event.event_attributes;
    return {
      idempotencyKey: idempotencyKey(uuid, a.vcon_operation as string, a.payload as string),
      vconUuid: uuid,
      event,
      backend: { url: backend.url, clientId: "client-1", clientSecret: "secret-1" },
    };
  }

  function queue(name: string): BullJobQueue<DeliveryJob> {
    const q = new BullJobQueue<DeliveryJob>(name, {
      redisUrl: REDIS_URL,
      prefix,
      attempts: 3,
      backoff: { type: "fixed", delayMs: 30 },
    });
    closers.push(() => q.close({ force: true }));
    return q;
  }

  function worker(name: string, claims: boolean): DeliveryWorker {
    const connection = new Redis(REDIS_URL);
    const w = startDeliveryWorker({
      queue: queue(name),
      deadLetters: new RedisDeadLetterStore(connection, `${prefix}:dlq:${name}`),
      concurrency: 12,
      log,
      metrics: createConserverMetrics(),
      ...(claims ? { claims: new RedisDeliveryClaims(connection, `${prefix}:${name}:`) } : {}),
    });
    closers.unshift(async () => {
      await w.close({ force: true });
      await connection.quit();
    });
    return w;
  }

  /** Runs every operation of `VCONS` new vCons through two workers; the backend's assets and events per vCon. */
  async function deliverAll(claims: boolean) {
    const name = uniqueName(claims ? "claims" : "none");
    const uuids = Array.from({ length: VCONS }, (_, i) => `${name}-${i}`);
    const producer = queue(name);
    worker(name, claims);
    worker(name, claims);
    // Operation by operation, so each vCon's jobs are spread over both workers.
    for (const op of OPS)
      for (const u of uuids) await producer.add("deliver", job(u, op), { jobId: job(u, op).idempotencyKey });
    const mine = () => backend.fake.events.filter((e) => String(e.event_attributes.subject).includes(name));
    await until(
      async () => {
        const c = await producer.counts();
        return mine().length >= uuids.length * OPS.length && c.waiting + c.delayed + c.active === 0;
      },
      20_000,
      "every event delivered",
    );
    return uuids.map((u) => ({
      assets: backend.fake.assets.filter((a) => a.attributes.subject === `vcon://${u}`),
      events: mine().filter((e) => e.event_attributes.subject === `vcon://${u}`),
    }));
  }

  it("without shared claims, they do create two assets for one vCon (the race is real here)", async () => {
    const perVcon = await deliverAll(false);
    expect(perVcon.some((v) => v.assets.length > 1)).toBe(true);
  });

  it("with shared claims, each vCon gets one asset and each event is recorded once, on it", async () => {
    const perVcon = await deliverAll(true);
    for (const v of perVcon) {
      expect(v.assets).toHaveLength(1);
      expect(v.events.map((e) => e.event_attributes.vcon_operation).sort()).toEqual(
        OPS.map((op) => `vcon_${op}`).sort(),
      );
      expect(new Set(v.events.map((e) => e.asset_identity))).toEqual(new Set([v.assets[0]?.identity]));
    }
  });

  /** The same deliveries in several batch jobs at once, taken by both workers. */
  async function sameEventsInBatches() {
    const name = uniqueName("batches");
    const jobs = Array.from({ length: 6 }, (_, i) => job(`${name}-${i}`, "created"));
    const producer = queue(name) as unknown as BullJobQueue<DeliveryPayload>;
    worker(name, true);
    worker(name, true);
    for (let i = 0; i < 4; i++) await producer.add(BATCH_JOB, { batch: jobs });
    const mine = () => backend.fake.events.filter((e) => String(e.event_attributes.subject).includes(name));
    await until(
      async () => {
        const c = await producer.counts();
        return mine().length >= jobs.length && c.waiting + c.delayed + c.active === 0;
      },
      20_000,
      "every batch delivered",
    );
    return jobs.map(
      (j) => mine().filter((e) => e.event_attributes.subject === `vcon://${j.vconUuid}`).length,
    );
  }

  it("with shared claims, one event in batches taken by both is recorded once", async () => {
    const hold = backend.fake.hold;
    // A slow record: the other worker's look-up comes while it is under way and finds nothing.
    backend.fake.hold = (route) => new Promise((r) => setTimeout(r, route === "events.create" ? 80 : 0));
    try {
      expect(await sameEventsInBatches()).toEqual([1, 1, 1, 1, 1, 1]);
    } finally {
      backend.fake.hold = hold;
    }
  });
});
