import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { dlqList, dlqRetry } from "../../../plugins/conserver/dead-letters/delivery-redrive.js";
import { MemoryDeadLetterStore } from "../../../plugins/conserver/dead-letters/delivery-store.js";
import type { DeliveryJob } from "../../../plugins/conserver/delivery/job.js";
import { createConserverMetrics } from "../../../plugins/conserver/delivery/metrics.js";
import { type DeliveryWorker, startDeliveryWorker } from "../../../plugins/conserver/delivery/worker.js";
import { MemoryQueue } from "../../../plugins/conserver/queue/index.js";
import { deliveryJob, quickRetries, until } from "./delivery-jobs.js";
import { FakeArchivist, type RepeatedKeys } from "./fake-archivist.js";

const log = pino({ level: "silent" });
const retry = quickRetries(2);

const job = deliveryJob;

let worker: DeliveryWorker | undefined;
afterEach(async () => {
  await worker?.close({ force: true });
  worker = undefined;
});

/** A worker on a fresh queue, delivering to `fake` (a new fake backend unless given). */
function setup(attempts = 3, repeatedKeys: RepeatedKeys = "all", fake = new FakeArchivist()) {
  fake.repeatedKeys = repeatedKeys;
  const queue = new MemoryQueue<DeliveryJob>("delivery", {
    attempts,
    backoff: { type: "fixed", delayMs: 2 },
  });
  const dead = new MemoryDeadLetterStore();
  const metrics = createConserverMetrics();
  worker = startDeliveryWorker({ queue, deadLetters: dead, fetch: fake.fetch, log, metrics, retry });
  const settled = async () => {
    const c = await queue.counts();
    return c.waiting + c.delayed + c.active === 0;
  };
  return { fake, queue, dead, metrics, settled };
}

describe("delivery worker", () => {
  it("records one event on the vCon's own asset, creating it once, with one token", async () => {
    const { fake, queue, settled } = setup();
    await queue.add("deliver", job("v-1", "created"));
    await queue.add("deliver", job("v-1", "enhanced"));
    await until(async () => fake.events.length === 2 && (await settled()));
    expect(fake.assets).toHaveLength(1);
    expect(fake.assets[0]?.attributes).toMatchObject({ arc_display_type: "vcon", subject: "vcon://v-1" });
    expect(fake.assets[0]?.public).toBe(false);
    expect(fake.events.map((e) => e.event_attributes.vcon_operation).sort()).toEqual([
      "vcon_created",
      "vcon_enhanced",
    ]);
    expect(fake.count("token")).toBe(1);
  });

  it("creates the vCon's asset public when its job asks, in either creation form; an existing asset stays as it is", async () => {
    const fake = new FakeArchivist();
    fake.offersWithEvents = true;
    const { queue, settled } = setup(3, "all", fake);
    await queue.add("deliver", { ...job("v-pub1", "created"), publicAsset: true });
    await until(async () => fake.events.length === 1 && (await settled()));
    fake.offersWithEvents = false;
    await queue.add("deliver", { ...job("v-pub2", "created"), publicAsset: true });
    await queue.add("deliver", job("v-priv", "created"));
    await until(async () => fake.events.length === 3 && (await settled()));
    expect(fake.assets.map((a) => [a.attributes.subject, a.public])).toEqual([
      ["vcon://v-pub1", true],
      ["vcon://v-pub2", true],
      ["vcon://v-priv", false],
    ]);
  });

  it("records a new vCon's event with its asset in one request where the backend offers assets:withEvents", async () => {
    const fake = new FakeArchivist();
    fake.offersWithEvents = true;
    const { queue, settled } = setup(3, "all", fake);
    await queue.add("deliver", job("v-w1", "created"));
    await until(async () => fake.events.length === 1 && (await settled()));
    expect(fake.count("assets.create_with_events")).toBe(1);
    expect(fake.count("assets.create") + fake.count("events.create") + fake.count("events.list")).toBe(0);
    // A later operation on the same vCon goes to the asset it made, as a plain event.
    await queue.add("deliver", job("v-w1", "enhanced"));
    await until(async () => fake.events.length === 2 && (await settled()));
    expect(fake.assets).toHaveLength(1);
    expect(fake.count("events.create")).toBe(1);
    expect(new Set(fake.events.map((e) => e.asset_identity))).toEqual(new Set([fake.assets[0]?.identity]));
  });

  it("creates assets plainly once a backend answers assets:withEvents as a path it lacks, without asking again", async () => {
    const { fake, queue, settled } = setup();
    for (const [i, uuid] of ["v-p1", "v-p2", "v-p3"].entries()) {
      await queue.add("deliver", job(uuid));
      await until(async () => fake.events.length === i + 1 && (await settled()));
    }
    expect(fake.count("assets.create_with_events")).toBe(1);
    expect(fake.count("assets.create")).toBe(3);
    expect(fake.count("events.create")).toBe(3);
  });

  it("does not resend assets:withEvents after a lost answer: the next attempt finds what it recorded", async () => {
    const fake = new FakeArchivist();
    fake.offersWithEvents = true;
    fake.fault("assets.create_with_events", { status: 503, afterActing: true });
    const { queue, settled, dead } = setup(3, "all", fake);
    await queue.add("deliver", job("v-lost"));
    await until(
      async () => fake.count("assets.list") >= 1 && fake.count("events.list") >= 1 && (await settled()),
    );
    expect(fake.count("assets.create_with_events")).toBe(1);
    expect(fake.assets).toHaveLength(1);
    expect(fake.events).toHaveLength(1);
    expect(await dead.size()).toBe(0);
  });

  it("creates concurrent new vCons' assets in assets:batchWithEvents requests, each once with its event", async () => {
    const fake = new FakeArchivist();
    fake.offersWithEvents = true;
    fake.offersBatch = true;
    const { queue, settled, dead } = setup(3, "all", fake);
    const uuids = Array.from({ length: 40 }, (_, i) => `v-b${i}`);
    await Promise.all(uuids.map((u) => queue.add("deliver", job(u))));
    await until(async () => fake.events.length === 40 && (await settled()));
    expect(fake.count("assets.batch_with_events")).toBeGreaterThan(0);
    // Fewer requests than vCons: they were batched (a lone first one may go alone).
    expect(fake.count("assets.batch_with_events") + fake.count("assets.create_with_events")).toBeLessThan(40);
    expect(fake.count("assets.create") + fake.count("events.create")).toBe(0);
    // Only the identities were asked back, and the answers carried nothing else.
    const creations = fake.calls.filter(
      (c) => c === "assets.batch_with_events" || c === "assets.create_with_events",
    );
    expect(fake.minimalCalls.filter((c) => c.startsWith("assets."))).toEqual(creations);
    expect(new Set(fake.assets.map((a) => a.attributes.subject)).size).toBe(40);
    expect(fake.assets).toHaveLength(40);
    expect(new Set(fake.events.map((e) => e.asset_identity)).size).toBe(40);
    expect(await dead.size()).toBe(0);
  });

  it("falls back to single creations for good when a backend lacks assets:batchWithEvents", async () => {
    const fake = new FakeArchivist();
    fake.offersWithEvents = true;
    const { queue, settled } = setup(3, "all", fake);
    for (const round of [0, 1]) {
      const uuids = Array.from({ length: 10 }, (_, i) => `v-f${round}-${i}`);
      await Promise.all(uuids.map((u) => queue.add("deliver", job(u))));
      await until(async () => fake.events.length === 10 * (round + 1) && (await settled()));
    }
    expect(fake.count("assets.batch_with_events")).toBe(1);
    expect(fake.count("assets.create_with_events")).toBe(20);
    expect(fake.assets).toHaveLength(20);
    expect(fake.events).toHaveLength(20);
  });

  it("sends each creation alone when a batch is refused as a whole, and batches again after", async () => {
    const fake = new FakeArchivist();
    fake.offersWithEvents = true;
    fake.offersBatch = true;
    fake.fault("assets.batch_with_events", { status: 413, body: { code: 3, message: "too large" } });
    const { queue, settled, dead } = setup(3, "all", fake);
    for (const round of [0, 1]) {
      const uuids = Array.from({ length: 10 }, (_, i) => `v-r${round}-${i}`);
      await Promise.all(uuids.map((u) => queue.add("deliver", job(u))));
      await until(async () => fake.events.length === 10 * (round + 1) && (await settled()));
    }
    expect(fake.count("assets.batch_with_events")).toBeGreaterThan(1);
    expect(fake.assets).toHaveLength(20);
    expect(fake.events).toHaveLength(20);
    expect(await dead.size()).toBe(0);
  });

  it("dead-letters a batch item the backend refuses and delivers its neighbours", async () => {
    const fake = new FakeArchivist();
    fake.offersWithEvents = true;
    fake.offersBatch = true;
    const { queue, settled, dead } = setup(3, "all", fake);
    // This item alone is refused, as its own request would be.
    fake.refuseCreation = (attributes) => attributes.subject === "vcon://v-bad";
    const jobs = [...Array.from({ length: 8 }, (_, i) => job(`v-ok${i}`)), job("v-bad")];
    await Promise.all(jobs.map((j) => queue.add("deliver", j)));
    await until(async () => fake.events.length === 8 && (await dead.size()) === 1 && (await settled()));
    expect(fake.count("assets.batch_with_events")).toBeGreaterThan(0);
    expect(fake.events).toHaveLength(8);
    expect((await dead.list())[0]?.job.vconUuid).toBe("v-bad");
  });

  it("does not resend a batch after a lost answer: each delivery's next attempt finds what it recorded", async () => {
    const fake = new FakeArchivist();
    fake.offersWithEvents = true;
    fake.offersBatch = true;
    fake.fault("assets.batch_with_events", { status: 503, afterActing: true });
    const { queue, settled, dead } = setup(3, "all", fake);
    const uuids = Array.from({ length: 20 }, (_, i) => `v-l${i}`);
    await Promise.all(uuids.map((u) => queue.add("deliver", job(u))));
    await until(async () => fake.count("assets.list") >= 1 && fake.events.length === 20 && (await settled()));
    expect(fake.assets).toHaveLength(20);
    expect(fake.events).toHaveLength(20);
    expect(new Set(fake.assets.map((a) => a.attributes.subject)).size).toBe(20);
    expect(await dead.size()).toBe(0);
  });

  it("resends no creation whose answer was lost: each next attempt finds what the last one made", async () => {
    // A backend without the extension: the asset and the event are separate creations.
    const { fake, queue, settled, dead } = setup(4);
    fake.fault("assets.create", { status: 502, afterActing: true });
    fake.fault("events.create", { status: 504, afterActing: true });
    await queue.add("deliver", job("v-lost2"));
    await until(async () => fake.count("events.list") >= 1 && (await settled()));
    expect(fake.count("assets.create")).toBe(1);
    expect(fake.count("events.create")).toBe(1);
    expect(fake.assets).toHaveLength(1);
    expect(fake.events).toHaveLength(1);
    expect(await dead.size()).toBe(0);
  });

  it("takes a write answered with a redirect, or with a success naming nothing it made, as a lost answer", async () => {
    const { fake, queue, settled, dead } = setup(8);
    // A redirect: not followed, not a refusal (the job is not dead-lettered), nothing made here.
    fake.fault("assets.create", { status: 307, headers: { location: "http://elsewhere/" } });
    // A proxy's 200 `{}` that wrote nothing, then a success naming another asset's event after acting.
    fake.fault(
      "events.create",
      { status: 200, body: {} },
      { status: 200, body: { identity: "assets/other/events/e" }, afterActing: true },
    );
    fake.fault("free_events.create", { status: 200, body: {} });
    await queue.add("deliver", { ...job("v-fake"), alsoAssetFree: true });
    await until(async () => fake.freeEvents.length === 1 && (await settled()));
    expect(fake.count("assets.create")).toBe(2);
    expect(fake.assets).toHaveLength(1);
    expect(fake.events).toHaveLength(1);
    expect(fake.count("free_events.create")).toBe(2);
    expect(fake.freeEvents).toHaveLength(1);
    expect(await dead.size()).toBe(0);
  });

  it("skips an event that is already recorded (a re-run after a crash)", async () => {
    const { fake, queue, settled, metrics } = setup();
    await queue.add("deliver", job("v-2"));
    await until(async () => fake.events.length === 1 && (await settled()));
    // The asset was created by this delivery, so it could not hold the event: no look-up.
    expect(fake.count("events.list")).toBe(0);
    await queue.add("deliver", job("v-2"));
    await until(async () => fake.count("events.list") === 1 && (await settled()));
    expect(fake.events).toHaveLength(1);
    const jobs = await metrics.registry.getSingleMetricAsString("conserver_delivery_jobs_total");
    expect(jobs).toContain('outcome="duplicate"} 1');
  });

  it("also records the asset-free event once when asked", async () => {
    const { fake, queue, settled } = setup();
    const j = { ...job("v-3"), alsoAssetFree: true };
    await queue.add("deliver", j);
    await until(async () => fake.freeEvents.length === 1 && (await settled()));
    await queue.add("deliver", j);
    await until(async () => fake.count("free_events.search") === 2 && (await settled()));
    expect(fake.freeEvents).toHaveLength(1);
    expect(fake.freeEvents[0]).toMatchObject({ trails: ["vcon://v-3"], event_type: "vcon_created" });
    expect(fake.freeEvents[0]?.attributes.subject).toBe("vcon://v-3");
  });

  it("fetches a new token once on a 401", async () => {
    const { fake, queue, settled } = setup();
    await queue.add("deliver", job("v-4"));
    await until(async () => fake.events.length === 1 && (await settled()));
    fake.revokeTokens();
    await queue.add("deliver", job("v-4", "sent"));
    await until(async () => fake.events.length === 2 && (await settled()));
    expect(fake.count("token")).toBe(2);
  });

  it("waits out 429 (Archivist-Rate-Limit-Reset) and 5xx answers", async () => {
    const { fake, queue, settled, metrics } = setup();
    fake.fault(
      "events.create",
      { status: 429, headers: { "archivist-rate-limit-reset": "0.05" } },
      { status: 503 },
    );
    const t0 = Date.now();
    await queue.add("deliver", job("v-5"));
    await until(async () => fake.events.length === 1 && (await settled()));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45);
    expect(fake.count("events.create")).toBe(3);
    expect(await metrics.registry.getSingleMetricAsString("conserver_delivery_rate_limited_total")).toMatch(
      / 1$/m,
    );
  });

  it("dead-letters a 4xx at once, lists it without the secret, and re-drives it", async () => {
    const { fake, queue, dead, settled } = setup();
    fake.fault("events.create", { status: 400, body: { message: "bad attribute" } });
    await queue.add("deliver", job("v-6"));
    await until(async () => (await dead.size()) === 1 && (await settled()));
    const [entry] = await dlqList(dead);
    expect(entry).toMatchObject({ status: 400, attempts: 1 });
    expect(entry?.reason).toContain("bad attribute");
    expect(entry?.job.backend.clientSecret).toBe("***");
    expect(fake.events).toHaveLength(0);
    expect(await dlqRetry(dead, queue)).toEqual([entry?.id]);
    await until(async () => fake.events.length === 1 && (await settled()));
    expect(await dead.size()).toBe(0);
    expect(await dlqRetry(dead, queue, { ids: ["missing"] })).toEqual([]);
  });

  it("dead-letters after the last attempt when the backend stays down", async () => {
    const { fake, queue, dead, settled } = setup(2);
    fake.fault("assets.list", ...Array.from({ length: 6 }, () => ({ status: 503 })));
    await queue.add("deliver", job("v-7"));
    await until(async () => (await dead.size()) === 1 && (await settled()));
    const [entry] = await dead.list();
    expect(entry?.reason).toMatch(/gave up after 2 attempts/);
    expect(entry?.status).toBe(503);
    expect(fake.count("assets.list")).toBe(6);
  });

  it("dead-letters refused credentials and malformed jobs", async () => {
    const { queue, dead, settled } = setup();
    await queue.add(
      "deliver",
      job("v-8", "created", { url: "http://fake", clientId: "client-1", clientSecret: "wrong" }),
    );
    await queue.add("deliver", { nonsense: true } as unknown as DeliveryJob, { jobId: "junk" });
    await queue.add("deliver", null as unknown as DeliveryJob, { jobId: "null" });
    await until(async () => (await dead.size()) === 3 && (await settled()));
    const ids = (await dlqList(dead)).map((e) => e.id);
    expect(ids).toHaveLength(3);
    expect(ids).toEqual(expect.arrayContaining(["junk", "null", expect.stringMatching(/^v-8:/)]));
    const reasons = (await dead.list()).map((e) => e.reason).join("\n");
    expect(reasons).toMatch(/refused the credentials \(401\)/);
    expect(reasons).toMatch(/job lacks idempotencyKey/);
    expect(reasons).toMatch(/job data is not an object/);
  });

  it("hands a long rate-limit reset back to the queue as the retry delay", async () => {
    const { fake, queue, settled } = setup();
    fake.fault("events.create", { status: 429, headers: { "archivist-rate-limit-reset": "2" } });
    await queue.add("deliver", job("v-9"));
    await until(async () => (await queue.counts()).delayed === 1);
    expect(fake.events).toHaveLength(0);
    expect(await settled()).toBe(false);
  });
});

describe("later operations in batches (assets/-/events:batch)", () => {
  const uuids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

  /** A worker on a backend with our extensions (the events batch as `offersEventBatch` says), and `n` vCons it knows. */
  async function knownVcons(prefix: string, n: number, offersEventBatch = true) {
    const fake = new FakeArchivist();
    fake.offersWithEvents = true;
    fake.offersBatch = true;
    fake.offersEventBatch = offersEventBatch;
    const s = setup(3, "any", fake);
    await Promise.all(uuids(prefix, n).map((u) => s.queue.add("deliver", job(u))));
    await until(async () => fake.events.length === n && (await s.settled()));
    return s;
  }

  /** Each vCon's `op` queued at once; resolves once every one is recorded or dead-lettered. */
  async function later(
    s: Awaited<ReturnType<typeof knownVcons>>,
    vcons: string[],
    op: string,
    expected: number,
  ) {
    await Promise.all(vcons.map((u) => s.queue.add("deliver", job(u, op))));
    await until(async () => s.fake.events.length + (await s.dead.size()) >= expected && (await s.settled()));
  }

  /** Every vCon has one asset, and each of its operations one event there. */
  function eachOnce(fake: FakeArchivist, ops: number): void {
    const keys = fake.events.map((e) => `${e.asset_identity}|${String(e.event_attributes.vcon_operation)}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(fake.events).toHaveLength(fake.assets.length * ops);
  }

  it("posts concurrent later operations' events in batches, each once, and a lone one alone", async () => {
    const s = await knownVcons("v-e", 40);
    await later(s, uuids("v-e", 40), "enhanced", 80);
    expect(s.fake.count("events.create_batch")).toBeGreaterThan(0);
    // Fewer requests than events: they were batched (a lone first one may go alone).
    expect(s.fake.count("events.create_batch") + s.fake.count("events.create")).toBeLessThan(40);
    expect(s.fake.minimalCalls.filter((c) => c === "events.create_batch")).toHaveLength(
      s.fake.count("events.create_batch"),
    );
    eachOnce(s.fake, 2);
    expect(await s.dead.size()).toBe(0);
    const [batches, singles] = [s.fake.count("events.create_batch"), s.fake.count("events.create")];
    await later(s, ["v-e-0"], "transcribed", 81);
    expect(s.fake.count("events.create_batch")).toBe(batches);
    expect(s.fake.count("events.create")).toBe(singles + 1);
  });

  it("falls back to single posts for good when a backend lacks the events batch", async () => {
    const s = await knownVcons("v-n", 10, false);
    await later(s, uuids("v-n", 10), "enhanced", 20);
    await later(s, uuids("v-n", 10), "transcribed", 30);
    expect(s.fake.count("events.create_batch")).toBe(1);
    expect(s.fake.count("events.create")).toBe(20);
    eachOnce(s.fake, 3);
    expect(await s.dead.size()).toBe(0);
  });

  it("posts each event alone when a batch is refused as a whole, and batches again after", async () => {
    const s = await knownVcons("v-w", 10);
    s.fake.fault("events.create_batch", { status: 413, body: { code: 3, message: "too large" } });
    await later(s, uuids("v-w", 10), "enhanced", 20);
    const batches = s.fake.count("events.create_batch");
    await later(s, uuids("v-w", 10), "transcribed", 30);
    expect(s.fake.count("events.create_batch")).toBeGreaterThan(batches);
    eachOnce(s.fake, 3);
    expect(await s.dead.size()).toBe(0);
  });

  it("dead-letters an event the backend refuses in a batch and delivers its neighbours", async () => {
    const s = await knownVcons("v-d", 9);
    const refused = job("v-d-8", "enhanced").event.event_attributes.payload;
    s.fake.refuseEvent = (attrs) => attrs.vcon_operation === "vcon_enhanced" && attrs.payload === refused;
    await later(s, uuids("v-d", 9), "enhanced", 18);
    expect(s.fake.count("events.create_batch")).toBeGreaterThan(0);
    expect(s.fake.events).toHaveLength(17);
    const dead = await s.dead.list();
    expect(dead.map((d) => [d.job.vconUuid, d.status])).toEqual([["v-d-8", 403]]);
  });

  it("does not resend a batch after a lost answer: each delivery's next attempt finds what it recorded", async () => {
    const s = await knownVcons("v-x", 20);
    s.fake.fault("events.create_batch", { status: 503, afterActing: true });
    const lists = s.fake.count("events.list");
    await later(s, uuids("v-x", 20), "enhanced", 40);
    expect(s.fake.count("events.create_batch")).toBeGreaterThan(0);
    // The lost batch's deliveries looked again, and found their events.
    await until(async () => s.fake.count("events.list") > lists + 1 && (await s.settled()));
    eachOnce(s.fake, 2);
    expect(await s.dead.size()).toBe(0);
  });
});

describe("delivery look-ups in groups", () => {
  const uuids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

  /** Two vCons first (they let the probe run), then `n` new ones at once. */
  async function newVcons(repeated: RepeatedKeys, n: number) {
    const s = setup(3, repeated);
    for (const u of uuids("first", 2)) await s.queue.add("deliver", job(u));
    await until(async () => s.fake.events.length === 2 && (await s.settled()));
    const before = s.fake.count("assets.list");
    // Someone else's assets that name two of the vCons but are not vCon assets: never taken.
    for (const u of uuids("new", 2))
      s.fake.assets.push({
        identity: `assets/${u}-decoy`,
        attributes: { subject: `vcon://${u}` },
        public: false,
      });
    for (const u of uuids("new", n)) await s.queue.add("deliver", job(u));
    await until(async () => s.fake.events.length === n + 2 && (await s.settled()));
    return { ...s, lookups: s.fake.count("assets.list") - before };
  }

  function oneAssetEach(fake: FakeArchivist, n: number): void {
    const subjects = fake.assets
      .filter((a) => a.attributes.arc_display_type === "vcon")
      .map((a) => a.attributes.subject);
    expect(fake.events.every((e) => !e.asset_identity.endsWith("-decoy"))).toBe(true);
    expect(subjects).toHaveLength(n);
    expect(new Set(subjects).size).toBe(n);
  }

  it("asks for many vCons' assets and events in one request once the backend has shown it can", async () => {
    const { fake, queue, settled, lookups } = await newVcons("any", 40);
    oneAssetEach(fake, 42);
    // 40 new vCons, looked up in far fewer requests (the workers take jobs as they come).
    expect(lookups).toBeLessThan(20);
    // A later operation on each: the event look-ups go in groups too, and record each event once.
    const all = [...uuids("first", 2), ...uuids("new", 40)];
    for (const u of all) await queue.add("deliver", job(u, "transcribed"));
    await until(async () => fake.events.length === 84 && (await settled()));
    const eventLookups = fake.count("events.list");
    expect(eventLookups).toBeLessThan(30);
    // The same jobs again (a re-run after a crash): each event is found, none recorded twice.
    for (const u of all) await queue.add("deliver", job(u, "transcribed"));
    await until(async () => fake.count("events.list") > eventLookups && (await settled()));
    expect(fake.events).toHaveLength(84);
    oneAssetEach(fake, 42);
  });

  it("never sends a group as credentials one of its jobs lacks (jobs queued before a secret rotation)", async () => {
    const { fake, queue, dead, settled } = await newVcons("any", 2);
    const stale = { url: "http://fake", clientId: "client-1", clientSecret: "rotated-away" };
    // Known vCons (event look-ups) and new ones (asset look-ups), a stale job first in each pair.
    const uuidsNow = [...uuids("first", 2), ...uuids("new", 2), ...uuids("newer", 4)];
    for (const u of uuidsNow) {
      await queue.add("deliver", job(u, "enhanced", stale));
      await queue.add("deliver", job(u, "enhanced"));
    }
    await until(async () => (await settled()) && (await dead.size()) === uuidsNow.length);
    // Only the stale jobs fail (the backend refuses their token); every other is recorded.
    expect((await dead.list()).every((e) => e.job.backend.clientSecret === "rotated-away")).toBe(true);
    const enhanced = fake.events.filter((e) => e.event_attributes.vcon_operation === "vcon_enhanced");
    expect(enhanced).toHaveLength(uuidsNow.length);
  });

  for (const repeated of ["all", "last"] as const) {
    it(`keeps one look-up per vCon against a backend that reads a repeated key as "${repeated}"`, async () => {
      const { fake } = await newVcons(repeated, 20);
      oneAssetEach(fake, 22);
      // Every vCon asked alone, and the one probe that found grouping unsafe.
      expect(fake.count("assets.list")).toBe(22 + 1);
      // A restarted worker (nothing cached) with a later operation on each: every vCon's asset is
      // found, where a group look-up on this backend would find none and create a second one.
      await worker?.close();
      const { queue } = setup(3, repeated, fake);
      for (const u of [...uuids("first", 2), ...uuids("new", 20)]) await queue.add("deliver", job(u, "sent"));
      await until(async () => fake.events.length === 44);
      oneAssetEach(fake, 22);
    });
  }
});
