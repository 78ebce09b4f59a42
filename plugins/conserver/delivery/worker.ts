import type { Logger } from "pino";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "vcon-archivist/client";
import type { DeadLetterStore } from "../dead-letters/delivery-store.js";
import { RetryLaterError } from "../queue/errors.js";
import type { Job, JobQueue } from "../queue/types.js";
import { AssetResolver } from "./assets.js";
import { type DeliveryPayload, isBatch } from "./batch.js";
import { ArchivistClient } from "./client.js";
import { type DeliveryOutcome, deliver, eventLookups, eventPosts } from "./deliver.js";
import type { DeliveryClaims } from "./delivery-claims.js";
import { PermanentDeliveryError, TransientDeliveryError } from "./errors.js";
import { backendKey, credentialsKey, type DeliveryBackend, type DeliveryJob, jobProblem } from "./job.js";
import { type ConserverMetrics, conserverMetrics } from "./metrics.js";
import { type FetchFn, TokenSource } from "./token-source.js";

export interface DeliveryWorkerOptions {
  /** Jobs of one delivery each, or batches of them (`BatchingDeliveryQueue`). */
  queue: JobQueue<DeliveryPayload>;
  deadLetters: DeadLetterStore;
  /** Deliveries at once (jobs, and the deliveries of batch jobs, share the same limit). */
  concurrency?: number;
  retry?: Partial<RetryPolicy>;
  fetch?: FetchFn;
  log?: Logger;
  metrics?: ConserverMetrics;
  /**
   * Shared with the other workers (Redis), so that one vCon never gets two assets and one event
   * is never delivered by two of them at once.
   */
  claims?: DeliveryClaims;
}

export interface DeliveryWorker {
  /** Stops taking jobs; waits for running ones, or aborts them with `force` (they return to the queue). */
  close(opts?: { force?: boolean }): Promise<void>;
}

const DEFAULT_CONCURRENCY = 32;

/** At most `n` of the runs at once; the others wait their turn in order. */
class Slots {
  private readonly waiting: Array<() => void> = [];

  constructor(private free: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((r) => this.waiting.push(r));
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

class Worker {
  private readonly tokens = new Map<string, TokenSource>();
  private readonly assets: AssetResolver;
  private readonly events = eventLookups();
  private readonly posts = eventPosts();
  private readonly policy: RetryPolicy;
  private readonly metrics: ConserverMetrics;
  private readonly slots: Slots;
  /** The delivery of each event under way in this process, by backend and idempotency key. */
  private readonly delivering = new Map<string, Promise<unknown>>();

  constructor(private readonly o: DeliveryWorkerOptions) {
    this.policy = { ...DEFAULT_RETRY_POLICY, ...o.retry };
    this.assets = new AssetResolver(o.claims);
    this.metrics = o.metrics ?? conserverMetrics();
    this.slots = new Slots(Math.max(1, o.concurrency ?? DEFAULT_CONCURRENCY));
  }

  private tokenSource(b: DeliveryBackend): TokenSource {
    const key = credentialsKey(b);
    let t = this.tokens.get(key);
    if (!t) {
      t = new TokenSource(b, this.o.fetch ?? fetch);
      this.tokens.set(key, t);
    }
    return t;
  }

  async handle(job: Job<DeliveryPayload>): Promise<void> {
    if (!isBatch(job.data)) {
      this.metrics.batchSize.observe(1);
      return this.slots.run(() => this.handleOne(job as Job<DeliveryJob>));
    }
    const items: unknown = job.data.batch;
    if (Array.isArray(items)) this.metrics.batchSize.observe(items.length);
    if (!Array.isArray(items) || items.length === 0) {
      await this.deadLetter(job as Job<DeliveryJob>, "batch job holds no list of deliveries");
      this.metrics.jobs.inc({ outcome: "dead_letter" });
      return;
    }
    const settled = await Promise.allSettled(
      items.map((data: DeliveryJob, i) =>
        this.slots.run(() => this.handleOne({ ...job, id: `${job.id}/${i}`, data })),
      ),
    );
    const failures = settled.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
    const [first] = failures;
    if (first === undefined) return;
    if (job.signal.aborted) throw first;
    // The batch runs again: what it recorded this time is found by the look-ups and not recorded twice.
    const waits = failures.map((e) => (e instanceof RetryLaterError ? e.retryAfterMs : undefined));
    const message = `${failures.length} of ${items.length} deliveries to retry: ${(first as Error).message ?? String(first)}`;
    if (waits.every((w) => w !== undefined)) throw new RetryLaterError(message, Math.max(...waits));
    throw new Error(message, { cause: first });
  }

  private async handleOne(job: Job<DeliveryJob>): Promise<void> {
    const started = performance.now();
    const outcome = await this.attempt(job);
    this.metrics.jobs.inc({ outcome });
    this.metrics.jobSeconds.observe({ outcome }, (performance.now() - started) / 1000);
  }

  /**
   * Runs one event's delivery after any other of the same event in this process, and, with
   * claims, while no other worker runs one: concurrent deliveries of one event would both look it
   * up, find nothing and both record it.
   */
  private async oneAtATime<T>(data: DeliveryJob, fn: () => Promise<T>, signal: AbortSignal): Promise<T> {
    const key = `${backendKey(data.backend)}|${data.idempotencyKey}`;
    const before = this.delivering.get(key);
    const run = (async () => {
      if (before) await before.catch(() => undefined);
      return this.o.claims ? this.o.claims.hold(key, fn, signal) : fn();
    })();
    this.delivering.set(key, run);
    try {
      return await run;
    } finally {
      if (this.delivering.get(key) === run) this.delivering.delete(key);
    }
  }

  private async attempt(job: Job<DeliveryJob>): Promise<DeliveryOutcome | "dead_letter"> {
    const problem = jobProblem(job.data);
    if (problem) return this.deadLetter(job, problem);
    const b = job.data.backend;
    const client = new ArchivistClient(b, this.tokenSource(b), {
      ...(this.o.fetch ? { fetch: this.o.fetch } : {}),
      policy: this.policy,
      signal: job.signal,
      metrics: this.metrics,
      ...(this.o.log ? { log: this.o.log } : {}),
    });
    try {
      const outcome = await this.oneAtATime(
        job.data,
        () => deliver(client, this.assets, this.events, this.posts, job.data, job.signal),
        job.signal,
      );
      this.o.log?.info({ jobId: job.id, vconUuid: job.data.vconUuid, outcome }, "delivery done");
      return outcome;
    } catch (err) {
      return this.failed(job, err);
    }
  }

  private async failed(job: Job<DeliveryJob>, err: unknown): Promise<"dead_letter"> {
    if (job.signal.aborted) throw err;
    if (err instanceof PermanentDeliveryError) return this.deadLetter(job, err.message, err.status);
    const last = job.attemptsMade + 1 >= this.o.queue.attempts;
    const message = err instanceof Error ? err.message : String(err);
    if (last) {
      const status = err instanceof TransientDeliveryError ? err.status : undefined;
      return this.deadLetter(job, `gave up after ${job.attemptsMade + 1} attempts: ${message}`, status);
    }
    this.metrics.jobs.inc({ outcome: "retry" });
    this.o.log?.warn(
      { jobId: job.id, attempt: job.attemptsMade + 1, err: message },
      "delivery failed; will retry",
    );
    if (err instanceof TransientDeliveryError && err.retryAfterMs !== undefined)
      throw new RetryLaterError(message, err.retryAfterMs);
    throw err;
  }

  private async deadLetter(job: Job<DeliveryJob>, reason: string, status?: number): Promise<"dead_letter"> {
    const data = job.data;
    const id = typeof data?.idempotencyKey === "string" && data.idempotencyKey ? data.idempotencyKey : job.id;
    await this.o.deadLetters.push({
      id,
      job: data,
      reason,
      ...(status === undefined ? {} : { status }),
      attempts: job.attemptsMade + 1,
      failedAt: new Date().toISOString(),
    });
    this.o.log?.error({ jobId: job.id, reason, status }, "delivery dead-lettered");
    return "dead_letter";
  }
}

/** Starts taking delivery jobs from `queue`: records each event once, dead-letters what cannot be. */
export function startDeliveryWorker(o: DeliveryWorkerOptions): DeliveryWorker {
  const w = new Worker(o);
  o.queue.process((job) => w.handle(job), { concurrency: o.concurrency ?? DEFAULT_CONCURRENCY });
  return { close: (opts) => o.queue.close(opts) };
}
