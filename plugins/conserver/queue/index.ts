export { backoffDelay, retryDelay, sleep } from "./backoff.js";
export { BullJobQueue, type BullQueueOptions, bullJobId } from "./bullmq-queue.js";
export { QueueConfigError, RetryLaterError, UnrecoverableJobError } from "./errors.js";
export { createQueue, type QueueOptions } from "./factory.js";
export { MemoryQueue, type MemoryQueueOptions } from "./memory-queue.js";
export type {
  AddOptions,
  Backoff,
  CloseOptions,
  Job,
  JobHandler,
  JobQueue,
  ProcessOptions,
  QueueCounts,
} from "./types.js";
