import { RetryLaterError } from "./errors.js";
import type { Backoff } from "./types.js";

/** Delay before the next attempt, given how many attempts failed so far (1 after the first failure). */
export function backoffDelay(backoff: Backoff, failures: number, random: () => number = Math.random): number {
  const base =
    backoff.type === "fixed"
      ? backoff.delayMs
      : backoff.delayMs * 2 ** Math.max(0, Math.min(failures - 1, 30));
  const capped = Math.min(base, backoff.maxDelayMs ?? Number.POSITIVE_INFINITY);
  const jitter = Math.min(1, Math.max(0, backoff.jitter ?? 0));
  return Math.round(capped * (1 - jitter * random()));
}

/** The delay a failed attempt asks for: its own retry-after if it has one, else the backoff. */
export function retryDelay(backoff: Backoff, failures: number, err: unknown): number {
  if (err instanceof RetryLaterError) return Math.max(err.retryAfterMs, 0);
  return backoffDelay(backoff, failures);
}

/** Sleeps `ms`, ending early (with the signal's reason) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
