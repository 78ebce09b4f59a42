import { exponentialDelay, sleep } from "vcon-archivist/client";
import { RetryLaterError } from "./errors.js";
import type { Backoff } from "./types.js";

export { sleep };

/** Delay before the next attempt, given how many attempts failed so far (1 after the first failure). */
export function backoffDelay(backoff: Backoff, failures: number, random: () => number = Math.random): number {
  // A fixed backoff is the exponential one that never gets past its first failure.
  return exponentialDelay(
    backoff.delayMs,
    backoff.maxDelayMs ?? Number.POSITIVE_INFINITY,
    backoff.type === "fixed" ? 1 : failures,
    backoff.jitter ?? 0,
    random,
  );
}

/** The delay a failed attempt asks for: its own retry-after if it has one, else the backoff. */
export function retryDelay(backoff: Backoff, failures: number, err: unknown): number {
  if (err instanceof RetryLaterError) return Math.max(err.retryAfterMs, 0);
  return backoffDelay(backoff, failures);
}
