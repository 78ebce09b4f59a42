import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { retryDelay } from "./backoff.js";
import { DueHeap, Fifo } from "./due-order.js";
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

interface Entry<T> {
  id: string;
  name: string;
  data: T;
  attemptsMade: number;
  readyAt: number;
}

export interface MemoryQueueOptions {
  attempts: number;
  backoff: Backoff;
  log?: Logger;
}

/**
 * In-process queue for the embedded default: same retry semantics as the BullMQ one,
 * but jobs live only as long as the process (the work they stand for must be recoverable elsewhere).
 */
export class MemoryQueue<T> implements JobQueue<T> {
  readonly attempts: number;
  /** Jobs due now, in the order they became due. */
  private readonly ready = new Fifo<Entry<T>>();
  /** Jobs not yet due (a delay, a retry's backoff), soonest first. */
  private readonly delayed = new DueHeap<Entry<T>>();
  private readonly ids = new Set<string>();
  private readonly active = new Map<string, AbortController>();
  private readonly running = new Set<Promise<void>>();
  private failed = 0;
  private handler: JobHandler<T> | undefined;
  private concurrency = 1;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    readonly name: string,
    private readonly opts: MemoryQueueOptions,
  ) {
    this.attempts = Math.max(1, opts.attempts);
  }

  /** Queues a job (ignored when a job with the same id is still pending or running). */
  async add(name: string, data: T, opts: AddOptions = {}): Promise<void> {
    if (this.closed) throw new QueueConfigError(`queue ${this.name} is closed`);
    const id = opts.jobId ?? randomUUID();
    if (this.ids.has(id)) return;
    this.ids.add(id);
    this.enqueue({ id, name, data, attemptsMade: 0, readyAt: Date.now() + (opts.delayMs ?? 0) });
    this.pump();
  }

  /** Starts running jobs with `handler` (once per queue). */
  process(handler: JobHandler<T>, opts: ProcessOptions = {}): void {
    if (this.handler) throw new QueueConfigError(`queue ${this.name} already has a handler`);
    this.handler = handler;
    this.concurrency = Math.max(1, opts.concurrency ?? 1);
    this.pump();
  }

  async counts(): Promise<QueueCounts> {
    this.promoteDue(Date.now());
    return {
      waiting: this.ready.size,
      delayed: this.delayed.size,
      active: this.active.size,
      failed: this.failed,
    };
  }

  /** Stops taking jobs; waits for running ones unless `force` (which aborts them). Pending jobs are dropped. */
  async close(opts: CloseOptions = {}): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    if (opts.force) for (const ac of this.active.values()) ac.abort(new Error("queue closed"));
    await Promise.allSettled([...this.running]);
  }

  private pump(): void {
    if (!this.handler || this.closed) return;
    clearTimeout(this.timer);
    const now = Date.now();
    this.promoteDue(now);
    while (this.active.size < this.concurrency && this.ready.size > 0) {
      this.start(this.ready.shift() as Entry<T>);
    }
    const next = this.delayed.peek();
    if (next && this.ready.size === 0 && this.active.size < this.concurrency) {
      this.timer = setTimeout(() => this.pump(), Math.max(1, next.readyAt - now));
    }
  }

  private enqueue(e: Entry<T>): void {
    if (e.readyAt <= Date.now()) this.ready.push(e);
    else this.delayed.push(e);
  }

  /** Moves the delayed jobs that are due by `now` to the end of the ready line, soonest first. */
  private promoteDue(now: number): void {
    for (let next = this.delayed.peek(); next && next.readyAt <= now; next = this.delayed.peek()) {
      this.ready.push(this.delayed.pop() as Entry<T>);
    }
  }

  private start(e: Entry<T>): void {
    const ac = new AbortController();
    this.active.set(e.id, ac);
    const p = this.run(e, ac).finally(() => {
      this.active.delete(e.id);
      this.running.delete(p);
      this.pump();
    });
    this.running.add(p);
  }

  private async run(e: Entry<T>, ac: AbortController): Promise<void> {
    const handler = this.handler as JobHandler<T>;
    try {
      await handler({
        id: e.id,
        name: e.name,
        data: e.data,
        attemptsMade: e.attemptsMade,
        signal: ac.signal,
      });
      this.ids.delete(e.id);
    } catch (err) {
      e.attemptsMade += 1;
      if (err instanceof UnrecoverableJobError || e.attemptsMade >= this.attempts || this.closed) {
        this.failed += 1;
        this.ids.delete(e.id);
        this.opts.log?.warn({ queue: this.name, jobId: e.id, err }, "job failed for good");
        return;
      }
      e.readyAt = Date.now() + retryDelay(this.opts.backoff, e.attemptsMade, err);
      this.enqueue(e);
    }
  }
}
