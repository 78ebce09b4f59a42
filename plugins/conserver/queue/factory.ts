import { BullJobQueue, type BullQueueOptions } from "./bullmq-queue.js";
import { MemoryQueue } from "./memory-queue.js";
import type { JobQueue } from "./types.js";

/** A BullMQ queue's options, its Redis optional. */
export interface QueueOptions extends Omit<BullQueueOptions, "redisUrl"> {
  /** BullMQ on this Redis when set; in-process otherwise. */
  redisUrl?: string;
}

/** A queue named `name`: BullMQ when a Redis URL is given, else in-process. */
export function createQueue<T>(name: string, opts: QueueOptions): JobQueue<T> {
  if (opts.redisUrl) return new BullJobQueue<T>(name, { ...opts, redisUrl: opts.redisUrl });
  return new MemoryQueue<T>(name, opts);
}
