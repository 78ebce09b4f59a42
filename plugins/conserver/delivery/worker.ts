import type { Logger } from "pino";
import { RetryLaterError } from "../../../src/queue/errors.js";
import type { Job, JobQueue } from "../../../src/queue/types.js";
import type { AssetClaims } from "./asset-claims.js";
import { AssetResolver } from "./assets.js";
import { ArchivistClient } from "./client.js";
import type { DeadLetterStore } from "./dead-letters.js";
import { type DeliveryOutcome, deliver, eventLookups } from "./deliver.js";
import { PermanentDeliveryError, TransientDeliveryError } from "./errors.js";
import { credentialsKey, type DeliveryBackend, type DeliveryJob, jobProblem } from "./job.js";
import { type ConserverMetrics, conserverMetrics } from "./metrics.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry-policy.js";
import { type FetchFn, TokenSource } from "./token-source.js";

export interface DeliveryWorkerOptions {
  queue: JobQueue<DeliveryJob>;
  deadLetters: DeadLetterStore;
  concurrency?: number;
  retry?: Partial<RetryPolicy>;
  fetch?: FetchFn;
  log?: Logger;
  metrics?: ConserverMetrics;
  /** Shared with the other workers (Redis), so that one vCon never gets two assets. */
  assetClaims?: AssetClaims;
}

export interface DeliveryWorker {
  /** Stops taking jobs; waits for running ones, or aborts them with `force` (they return to the queue). */
  close(opts?: { force?: boolean }): Promise<void>;
}

class Worker {
  private readonly tokens = new Map<string, TokenSource>();
  private readonly assets: AssetResolver;
  private readonly events = eventLookups();
  private readonly policy: RetryPolicy;
  private readonly metrics: ConserverMetrics;

  constructor(private readonly o: DeliveryWorkerOptions) {
    this.policy = { ...DEFAULT_RETRY_POLICY, ...o.retry };
    this.assets = new AssetResolver(o.assetClaims);
    this.metrics = o.metrics ?? conserverMetrics();
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

  async handle(job: Job<DeliveryJob>): Promise<void> {
    const started = performance.now();
    const outcome = await this.attempt(job);
    this.metrics.jobs.inc({ outcome });
    this.metrics.jobSeconds.observe({ outcome }, (performance.now() - started) / 1000);
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
      const outcome = await deliver(client, this.assets, this.events, job.data, job.signal);
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
  o.queue.process((job) => w.handle(job), { concurrency: o.concurrency ?? 32 });
  return { close: (opts) => o.queue.close(opts) };
}
