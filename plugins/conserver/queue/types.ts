/** A job as a handler sees it. */
export interface Job<T> {
  id: string;
  name: string;
  data: T;
  /** Attempts already made before this one (0 on the first run). */
  attemptsMade: number;
  /** Aborted when the queue is force-closed while the job runs. */
  signal: AbortSignal;
}

export interface AddOptions {
  /** Deduplicates: a job whose id is already waiting, delayed or active is not added again. */
  jobId?: string;
  delayMs?: number;
}

export interface ProcessOptions {
  concurrency?: number;
}

export type JobHandler<T> = (job: Job<T>) => Promise<void>;

export interface CloseOptions {
  /** Do not wait for running jobs: abort them (a crash, as far as the queue is concerned). */
  force?: boolean;
}

/** Numbers of jobs per state, for metrics and tests. */
export interface QueueCounts {
  waiting: number;
  delayed: number;
  active: number;
  failed: number;
}

/** The project's queue: at-least-once jobs with retries and backoff. */
export interface JobQueue<T> {
  readonly name: string;
  /** How many times a job runs before it fails for good. */
  readonly attempts: number;
  add(name: string, data: T, opts?: AddOptions): Promise<void>;
  process(handler: JobHandler<T>, opts?: ProcessOptions): void;
  counts(): Promise<QueueCounts>;
  close(opts?: CloseOptions): Promise<void>;
}

/** Retry delays: exponential or fixed, capped, with a random part so retries of many jobs spread out. */
export interface Backoff {
  type: "exponential" | "fixed";
  delayMs: number;
  maxDelayMs?: number;
  /** Fraction of the delay that is random, 0..1 (0.5: between 50% and 100% of the delay). */
  jitter?: number;
}
