import { type Job as BullJob, Queue, UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { retryDelay, sleep } from "./backoff.js";
import { QueueConfigError, UnrecoverableJobError } from "./errors.js";
import type {
  AddOptions,
  Backoff,
  CloseOptions,
  JobHandler,
  JobQueue,
  ProcessOptions,
  QueueCounts,
} from "./types.js";

export interface BullQueueOptions {
  redisUrl: string;
  /** Key prefix in Redis (BullMQ's `prefix`). */
  prefix?: string;
  attempts: number;
  backoff: Backoff;
  /** How long a worker's hold on a job lasts without renewal; a crashed worker's jobs return after it. */
  lockDurationMs?: number;
  /** How often workers look for jobs whose holder died. */
  stalledIntervalMs?: number;
  log?: Logger;
}

const STRATEGY = "archivist";
const FORCED_GRACE_MS = 1000;

/** BullMQ refuses ':' in custom ids (it separates key parts), so it is replaced. */
function bullJobId(id: string): string {
  const safe = id.replaceAll(":", ".");
  return /^\d+$/.test(safe) ? `j${safe}` : safe;
}

/** Redis-backed queue (BullMQ): jobs survive restarts of the process and of Redis (with persistence). */
export class BullJobQueue<T> implements JobQueue<T> {
  readonly attempts: number;
  private readonly queue: Queue;
  private readonly connections: Redis[] = [];
  private worker: Worker | undefined;
  /** Handler runs under way, so that a forced close can let them end before the connections do. */
  private readonly running = new Set<Promise<void>>();

  constructor(
    readonly name: string,
    private readonly opts: BullQueueOptions,
  ) {
    if (name.includes(":")) throw new QueueConfigError(`queue name ${name} cannot contain ':'`);
    this.attempts = Math.max(1, opts.attempts);
    this.queue = new Queue(name, { connection: this.connect(), prefix: opts.prefix ?? "bull" });
    this.queue.on("error", (err) => opts.log?.warn({ queue: name, err }, "queue connection error"));
  }

  /** Queues a job; a job with the same id that still exists (waiting, delayed, active) is not added again. */
  async add(name: string, data: T, opts: AddOptions = {}): Promise<void> {
    await this.queue.add(name, data, {
      ...(opts.jobId ? { jobId: bullJobId(opts.jobId) } : {}),
      ...(opts.delayMs ? { delay: opts.delayMs } : {}),
      attempts: this.attempts,
      backoff: { type: STRATEGY },
      removeOnComplete: true,
      removeOnFail: { count: 1000 },
    });
  }

  /** Starts a BullMQ worker for this queue in this process. */
  process(handler: JobHandler<T>, opts: ProcessOptions = {}): void {
    if (this.worker) throw new QueueConfigError(`queue ${this.name} already has a handler`);
    const processor = async (job: BullJob, _token?: string, signal?: AbortSignal) => {
      const run = this.runHandler(handler, job, signal);
      this.running.add(run);
      try {
        await run;
      } finally {
        this.running.delete(run);
      }
    };
    this.worker = new Worker(this.name, processor, {
      connection: this.connect(),
      prefix: this.opts.prefix ?? "bull",
      concurrency: Math.max(1, opts.concurrency ?? 1),
      maxStalledCount: 10,
      ...(this.opts.lockDurationMs ? { lockDuration: this.opts.lockDurationMs } : {}),
      ...(this.opts.stalledIntervalMs ? { stalledInterval: this.opts.stalledIntervalMs } : {}),
      settings: { backoffStrategy: (made, _type, err) => retryDelay(this.opts.backoff, made, err) },
    });
    this.worker.on("error", (err) => this.opts.log?.warn({ queue: this.name, err }, "worker error"));
    this.worker.on("failed", (job, err) => {
      if (job && job.attemptsMade >= this.attempts)
        this.opts.log?.warn({ queue: this.name, jobId: job.id, err }, "job failed for good");
    });
  }

  private async runHandler(handler: JobHandler<T>, job: BullJob, signal?: AbortSignal): Promise<void> {
    try {
      await handler({
        id: job.id ?? "",
        name: job.name,
        data: job.data as T,
        attemptsMade: job.attemptsMade,
        signal: signal ?? new AbortController().signal,
      });
    } catch (err) {
      if (err instanceof UnrecoverableJobError) throw new UnrecoverableError(err.message);
      throw err;
    }
  }

  async counts(): Promise<QueueCounts> {
    const c = await this.queue.getJobCounts("waiting", "prioritized", "delayed", "active", "failed");
    return {
      waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
      delayed: c.delayed ?? 0,
      active: c.active ?? 0,
      failed: c.failed ?? 0,
    };
  }

  /** Closes the worker (waiting for running jobs unless `force`) and the connections. */
  async close(opts: CloseOptions = {}): Promise<void> {
    if (this.worker) {
      if (opts.force) this.worker.cancelAllJobs("queue closed");
      await this.worker.close(opts.force === true);
      // A forced close does not wait for the aborted jobs, whose ends BullMQ still records on these
      // connections: quitting first rejects those commands where nobody listens (an unhandled
      // rejection that ends a process). Their handlers stop at once on the abort; give them that.
      if (opts.force && this.running.size > 0) {
        await Promise.race([Promise.allSettled(this.running), sleep(FORCED_GRACE_MS)]);
        await new Promise((r) => setImmediate(r));
      }
    }
    await this.queue.close();
    await Promise.allSettled(this.connections.map((c) => c.quit()));
  }

  /** Removes every key of this queue (tests, `dlq` tooling); the queue must be idle. */
  async obliterate(): Promise<void> {
    await this.queue.obliterate({ force: true });
  }

  private connect(): Redis {
    // BullMQ workers block on Redis; ioredis must not give up on a command while they do.
    const c = new Redis(this.opts.redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
    c.on("error", (err) => this.opts.log?.debug({ queue: this.name, err }, "redis connection error"));
    this.connections.push(c);
    return c;
  }
}
