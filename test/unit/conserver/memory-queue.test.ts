import { describe, expect, it } from "vitest";
import {
  backoffDelay,
  createQueue,
  type Job,
  MemoryQueue,
  RetryLaterError,
  retryDelay,
  UnrecoverableJobError,
} from "../../../plugins/conserver/queue/index.js";

const fast = { attempts: 3, backoff: { type: "fixed" as const, delayMs: 5 } };

function until(check: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) return resolve();
      if (Date.now() > end) return reject(new Error("condition not met in time"));
      setTimeout(tick, 2);
    };
    tick();
  });
}

describe("backoff", () => {
  it("doubles from the base, caps, and jitters downwards only", () => {
    const b = { type: "exponential" as const, delayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(b, n))).toEqual([100, 200, 400, 800, 1000]);
    expect(backoffDelay({ ...b, jitter: 0.5 }, 2, () => 1)).toBe(100);
    expect(backoffDelay({ ...b, jitter: 0.5 }, 2, () => 0)).toBe(200);
    expect(backoffDelay({ type: "fixed", delayMs: 7 }, 9)).toBe(7);
    expect(retryDelay(b, 1, new RetryLaterError("later", 4321))).toBe(4321);
  });
});

describe("in-process queue", () => {
  it("is what createQueue gives without a Redis URL", () => {
    expect(createQueue("q", fast)).toBeInstanceOf(MemoryQueue);
  });

  it("retries a failing job with backoff until it succeeds", async () => {
    const q = new MemoryQueue<{ n: number }>("q", fast);
    const seen: Array<Pick<Job<{ n: number }>, "attemptsMade" | "data" | "name">> = [];
    q.process(async (job) => {
      seen.push({ attemptsMade: job.attemptsMade, data: job.data, name: job.name });
      if (job.attemptsMade < 2) throw new Error("not yet");
    });
    await q.add("work", { n: 1 });
    await until(() => seen.length === 3);
    await q.close();
    expect(seen.map((s) => s.attemptsMade)).toEqual([0, 1, 2]);
    expect(seen[0]).toMatchObject({ name: "work", data: { n: 1 } });
    expect(await q.counts()).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0 });
  });

  it("gives up after the configured attempts, and at once on an unrecoverable error", async () => {
    const q = new MemoryQueue<string>("q", fast);
    let runs = 0;
    q.process(async (job) => {
      runs += 1;
      if (job.data === "fatal") throw new UnrecoverableJobError("no");
      throw new Error("always");
    });
    await q.add("a", "fatal");
    await q.add("b", "flaky");
    await until(() => runs === 4);
    await new Promise((r) => setTimeout(r, 30));
    expect(runs).toBe(4);
    expect((await q.counts()).failed).toBe(2);
    await q.close();
  });

  it("deduplicates by job id while the job is pending and honours delays", async () => {
    const q = new MemoryQueue<number>("q", fast);
    await q.add("a", 1, { jobId: "same", delayMs: 40 });
    await q.add("a", 2, { jobId: "same" });
    expect(await q.counts()).toMatchObject({ waiting: 0, delayed: 1 });
    const got: number[] = [];
    const started = Date.now();
    q.process(async (job) => {
      got.push(job.data);
    });
    await until(() => got.length === 1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(30);
    await q.add("a", 3, { jobId: "same" });
    await until(() => got.length === 2);
    expect(got).toEqual([1, 3]);
    await q.close();
  });

  it("runs up to `concurrency` jobs at once", async () => {
    const q = new MemoryQueue<number>("q", fast);
    let running = 0;
    let peak = 0;
    let done = 0;
    q.process(
      async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 10));
        running -= 1;
        done += 1;
      },
      { concurrency: 3 },
    );
    for (let i = 0; i < 9; i++) await q.add("a", i);
    await until(() => done === 9);
    expect(peak).toBe(3);
    await q.close();
  });

  it("runs due jobs first in, first out and delayed ones soonest first, whatever order they came in", async () => {
    const q = new MemoryQueue<string>("q", fast);
    // Delays far longer than adding 2,000 jobs takes, even on a loaded machine (30 ms was not).
    await q.add("a", "late", { delayMs: 1500 });
    await q.add("a", "sooner", { delayMs: 750 });
    for (let i = 0; i < 2000; i++) await q.add("a", `now-${i}`);
    expect(await q.counts()).toMatchObject({ waiting: 2000, delayed: 2 });
    const got: string[] = [];
    q.process(async (job) => {
      got.push(job.data);
    });
    await until(() => got.length === 2002);
    expect(got.slice(0, 2000)).toEqual(Array.from({ length: 2000 }, (_, i) => `now-${i}`));
    expect(got.slice(2000)).toEqual(["sooner", "late"]);
    await q.close();
  });

  it("force-close aborts running jobs; graceful close waits for them", async () => {
    const q = new MemoryQueue<number>("q", fast);
    let aborted = false;
    let started = false;
    q.process(
      (job) =>
        new Promise<void>((_resolve, reject) => {
          started = true;
          job.signal.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("aborted"));
          });
        }),
    );
    await q.add("a", 1);
    await until(() => started);
    expect((await q.counts()).active).toBe(1);
    await q.close({ force: true });
    expect(aborted).toBe(true);
    await expect(q.add("a", 2)).rejects.toThrow(/closed/);
    expect(() => q.process(async () => undefined)).toThrow(/handler/);
  });
});
