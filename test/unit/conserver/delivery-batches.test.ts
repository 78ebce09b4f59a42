import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryDeadLetterStore } from "../../../plugins/conserver/dead-letters/delivery-store.js";
import {
  BATCH_JOB,
  BatchingDeliveryQueue,
  type DeliveryPayload,
} from "../../../plugins/conserver/delivery/batch.js";
import type { DeliveryJob } from "../../../plugins/conserver/delivery/job.js";
import { createConserverMetrics } from "../../../plugins/conserver/delivery/metrics.js";
import { type DeliveryWorker, startDeliveryWorker } from "../../../plugins/conserver/delivery/worker.js";
import { MemoryQueue } from "../../../plugins/conserver/queue/index.js";
import type { AddOptions } from "../../../plugins/conserver/queue/types.js";
import { deliveryJob, quickRetries, until } from "./delivery-jobs.js";
import { FakeArchivist } from "./fake-archivist.js";

const log = pino({ level: "silent" });
const retry = quickRetries(0);

const job = deliveryJob;

/** A queue that only records what is added to it. */
class Recorder extends MemoryQueue<DeliveryPayload> {
  readonly added: Array<{ name: string; data: DeliveryPayload; opts: AddOptions }> = [];
  override async add(name: string, data: DeliveryPayload, opts: AddOptions = {}): Promise<void> {
    this.added.push({ name, data, opts });
  }
}

describe("deliveries queued at the same moment", () => {
  it("share one job; a lone one keeps its own job under its idempotency key", async () => {
    const inner = new Recorder("d", { attempts: 1, backoff: { type: "fixed", delayMs: 1 } });
    const queue = new BatchingDeliveryQueue(inner);
    const jobs = ["a", "b", "c"].map((u) => job(u));
    // The same event twice in one moment is one delivery.
    await Promise.all(
      [...jobs, jobs[0] as DeliveryJob].map((j) => queue.add("deliver", j, { jobId: j.idempotencyKey })),
    );
    expect(inner.added).toHaveLength(1);
    expect(inner.added[0]?.name).toBe(BATCH_JOB);
    expect(inner.added[0]?.data).toEqual({ batch: jobs });
    const lone = job("d");
    await queue.add("deliver", lone, { jobId: lone.idempotencyKey });
    expect(inner.added[1]).toEqual({ name: "deliver", data: lone, opts: { jobId: lone.idempotencyKey } });
  });

  it("each add resolves only once its job is stored, and fails with it", async () => {
    const inner = new Recorder("d", { attempts: 1, backoff: { type: "fixed", delayMs: 1 } });
    inner.add = async () => {
      throw new Error("redis down");
    };
    const queue = new BatchingDeliveryQueue(inner);
    const results = await Promise.allSettled(["a", "b"].map((u) => queue.add("deliver", job(u))));
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  });
});

describe("a delivery worker given batches", () => {
  let worker: DeliveryWorker | undefined;
  afterEach(async () => {
    await worker?.close({ force: true });
    worker = undefined;
  });

  function setup(attempts = 3) {
    const fake = new FakeArchivist();
    fake.repeatedKeys = "any";
    const queue = new MemoryQueue<DeliveryPayload>("delivery", {
      attempts,
      backoff: { type: "fixed", delayMs: 2 },
    });
    const dead = new MemoryDeadLetterStore();
    const metrics = createConserverMetrics();
    worker = startDeliveryWorker({
      queue,
      deadLetters: dead,
      fetch: fake.fetch,
      log,
      metrics,
      retry,
      concurrency: 4,
    });
    const settled = async () => {
      const c = await queue.counts();
      return c.waiting + c.delayed + c.active === 0;
    };
    const outcomes = async () =>
      Object.fromEntries((await metrics.jobs.get()).values.map((v) => [String(v.labels.outcome), v.value]));
    return { fake, queue, dead, metrics, settled, outcomes };
  }

  it("records each delivery once, with no more at once than its concurrency", async () => {
    const { fake, queue, metrics, settled } = setup();
    let inFlight = 0;
    let most = 0;
    // Creates belong to one delivery each (look-ups may serve several, the probe none).
    fake.hold = async (route) => {
      if (!route.endsWith(".create")) return;
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 2));
      inFlight--;
    };
    const batch = Array.from({ length: 12 }, (_, i) => job(`v-${i}`));
    await queue.add(BATCH_JOB, { batch });
    await until(async () => fake.events.length === 12 && (await settled()));
    expect(new Set(fake.events.map((e) => e.event_attributes.subject)).size).toBe(12);
    expect(fake.assets).toHaveLength(12);
    expect(most).toBeLessThanOrEqual(4);
    // One queue job taken, holding all twelve.
    const sizes = (await metrics.batchSize.get()).values;
    const of = (suffix: string) => sizes.find((v) => v.metricName?.endsWith(suffix))?.value;
    expect([of("_count"), of("_sum")]).toEqual([1, 12]);
  });

  it("dead-letters only the delivery the backend refuses", async () => {
    const { fake, queue, dead, settled, outcomes } = setup();
    fake.fault("events.create", { status: 400, body: { message: "bad attribute" } });
    await queue.add(BATCH_JOB, { batch: ["a", "b", "c"].map((u) => job(u)) });
    await until(async () => (await dead.size()) === 1 && (await settled()));
    expect(fake.events).toHaveLength(2);
    const [entry] = await dead.list();
    expect(entry?.status).toBe(400);
    expect(entry?.id).toBe(entry?.job.idempotencyKey);
    expect(await outcomes()).toMatchObject({ delivered: 2, dead_letter: 1 });
  });

  it("runs a batch again when one delivery failed for now, recording nothing twice", async () => {
    const { fake, queue, dead, settled, outcomes } = setup();
    fake.fault("events.create", { status: 503 });
    await queue.add(BATCH_JOB, { batch: ["a", "b", "c"].map((u) => job(u)) });
    await until(async () => fake.events.length === 3 && (await settled()));
    expect(await dead.size()).toBe(0);
    expect(fake.assets).toHaveLength(3);
    // The two recorded on the first run were found on the second and not recorded again.
    expect(await outcomes()).toMatchObject({ delivered: 3, duplicate: 2, retry: 1 });
  });

  it("never runs one event's deliveries at once, in one batch or in two", async () => {
    const { fake, queue, settled } = setup();
    // A slow first answer leaves the second delivery time to find nothing, were they run together.
    fake.hold = (route) => new Promise((r) => setTimeout(r, route === "events.list" ? 20 : 0));
    const same = job("twice");
    await queue.add(BATCH_JOB, { batch: [same, job("other")] });
    await queue.add(BATCH_JOB, { batch: [same] });
    await queue.add("deliver", same);
    await until(async () => fake.events.length >= 2 && (await settled()));
    await new Promise((r) => setTimeout(r, 50));
    expect(fake.events.filter((e) => e.event_attributes.subject === "vcon://twice")).toHaveLength(1);
  });

  it("dead-letters a batch job that holds no deliveries", async () => {
    const { queue, dead, settled } = setup();
    await queue.add(BATCH_JOB, { batch: "nonsense" } as unknown as DeliveryPayload, { jobId: "junk" });
    await until(async () => (await dead.size()) === 1 && (await settled()));
    expect((await dead.list())[0]?.reason).toMatch(/no list of deliveries/);
  });
});
