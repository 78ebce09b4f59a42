import { exponentialDelay, sleep } from "../../../src/client/index.js";
import { RetryLaterError } from "./errors.js";
import type { Backoff } from "./types.js";

export { sleep };

/** Delay before the next attempt, given how many attempts failed so far (1 after the first failure). */
export function backoffDelay(backoff: Backoff, failures: number, random: () => number = Math.random): number {
  const maxMs = backoff.maxDelayMs ?? Number.POSITIVE_INFINITY;
  if (backoff.type === "fixed")
    return exponentialDelay(backoff.delayMs, maxMs, 1, backoff.jitter ?? 0, random);
  return exponentialDelay(backoff.delayMs, maxMs, failures, backoff.jitter ?? 0, random);
}

/** The delay a failed attempt asks for: its own retry-after if it has one, else the backoff. */
export function retryDelay(backoff: Backoff, failures: number, err: unknown): number {
  if (err instanceof RetryLaterError) return Math.max(err.retryAfterMs, 0);
  return backoffDelay(backoff, failures);
}
