export { backoffDelay, retryDelay, sleep } from "./backoff.js";
export { BullJobQueue, type BullQueueOptions, bullJobId } from "./bullmq-queue.js";
export { QueueConfigError, RetryLaterError, UnrecoverableJobError } from "./errors.js";
export { createQueue, createWakeSignal, type QueueOptions } from "./factory.js";
export { MemoryQueue, type MemoryQueueOptions } from "./memory-queue.js";
export { type RedisWakeOptions, RedisWakeSignal } from "./redis-wake-signal.js";
export type {
  AddOptions,
  Backoff,
  CloseOptions,
  Job,
  JobHandler,
  JobQueue,
  ProcessOptions,
  QueueCounts,
  WakeSignal,
} from "./types.js";
export { LocalWakeSignal, waitOn } from "./wake-signal.js";
