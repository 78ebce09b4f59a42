export { backoffDelay, retryDelay } from "./backoff.js";
export { BullJobQueue } from "./bullmq-queue.js";
export { RetryLaterError, UnrecoverableJobError } from "./errors.js";
export { createQueue } from "./factory.js";
export { MemoryQueue } from "./memory-queue.js";
export type {
  AddOptions,
  Job,
  JobQueue,
} from "./types.js";
