import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BullJobQueue,
  createQueue,
  RetryLaterError,
  UnrecoverableJobError,
} from "../../../plugins/conserver/queue/index.js";
import { deleteKeys, REDIS_URL, redisUp, uniqueName, until } from "./redis-env.js";

const up = await redisUp();

describe.skipIf(!up)("BullMQ queue", () => {
  const prefix = uniqueName("q");
  let redis: Redis;
  const opened: Array<{ close(opts?: { force?: boolean }): Promise<void> }> = [];
  const queue = <T>(attempts = 3) => {
    const q = new BullJobQueue<T>(uniqueName("jobs"), {
      redisUrl: REDIS_URL,
      prefix,
      attempts,
      backoff: { type: "fixed", delayMs: 20 },
    });
    opened.push(q);
    return q;
  };

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    for (const q of opened) await q.close({ force: true });
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it("is what createQueue gives with a Redis URL", () => {
    const q = createQueue<number>(uniqueName("f"), {
      redisUrl: REDIS_URL,
      prefix,
      attempts: 1,
      backoff: { type: "fixed", delayMs: 1 },
    });
    opened.push(q);
    expect(q).toBeInstanceOf(BullJobQueue);
  });

  it("retries failed jobs with the configured backoff and reports attempts", async () => {
    const q = queue<{ n: number }>();
    const seen: number[] = [];
    q.process(async (job) => {
      seen.push(job.attemptsMade);
      if (job.attemptsMade < 2) throw new Error("again");
    });
    await q.add("work", { n: 1 }, { jobId: "a:b:c" });
    await until(() => seen.length === 3, 5000, "three attempts");
    await until(async () => (await q.counts()).active === 0);
    expect(seen).toEqual([0, 1, 2]);
    expect(await q.counts()).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0 });
  });

  it("deduplicates pending job ids, stops at once on unrecoverable errors, delays on RetryLaterError", async () => {
    const q = queue<string>(5);
    await q.add("w", "first", { jobId: "same", delayMs: 50 });
    await q.add("w", "second", { jobId: "same" });
    expect((await q.counts()).delayed).toBe(1);
    const runs: Array<{ data: string; at: number }> = [];
    q.process(async (job) => {
      runs.push({ data: job.data, at: Date.now() });
      if (job.data === "fatal") throw new UnrecoverableJobError("no");
      if (job.data === "later" && job.attemptsMade === 0) throw new RetryLaterError("wait", 300);
    });
    await q.add("w", "fatal");
    await q.add("w", "later");
    await until(() => runs.filter((r) => r.data === "later").length === 2, 5000, "retry of 'later'");
    await until(async () => (await q.counts()).failed === 1, 5000, "fatal job failed");
    const later = runs.filter((r) => r.data === "later");
    expect((later[1]?.at ?? 0) - (later[0]?.at ?? 0)).toBeGreaterThanOrEqual(250);
    expect(runs.filter((r) => r.data === "fatal")).toHaveLength(1);
    expect(runs.map((r) => r.data)).not.toContain("second");
  });
});
