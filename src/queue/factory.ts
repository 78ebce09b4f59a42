import type { Logger } from "pino";
import { BullJobQueue } from "./bullmq-queue.js";
import { MemoryQueue } from "./memory-queue.js";
import { RedisWakeSignal } from "./redis-wake-signal.js";
import type { Backoff, JobQueue, WakeSignal } from "./types.js";
import { LocalWakeSignal } from "./wake-signal.js";

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

/** A wake signal: Redis pub/sub when a Redis URL is given, else in-process. */
export function createWakeSignal(
  opts: { redisUrl?: string; prefix?: string; log?: Logger } = {},
): WakeSignal {
  if (opts.redisUrl) return new RedisWakeSignal({ ...opts, redisUrl: opts.redisUrl });
  return new LocalWakeSignal();
}
