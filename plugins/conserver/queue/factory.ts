import type { Logger } from "pino";
import { BullJobQueue } from "./bullmq-queue.js";
import { MemoryQueue } from "./memory-queue.js";
import type { Backoff, JobQueue } from "./types.js";

export interface QueueOptions {
  /** BullMQ on this Redis when set; in-process otherwise. */
  redisUrl?: string;
  /** Key prefix in Redis (BullMQ's `prefix`). */
  prefix?: string;
  attempts: number;
  backoff: Backoff;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  log?: Logger;
}

/** A queue named `name`: BullMQ when a Redis URL is given, else in-process. */
export function createQueue<T>(name: string, opts: QueueOptions): JobQueue<T> {
  if (opts.redisUrl) return new BullJobQueue<T>(name, { ...opts, redisUrl: opts.redisUrl });
  return new MemoryQueue<T>(name, opts);
}
