import { leaseSignal } from "./signal-lease.js";

/**
 * Delay before the next try after `failures` failures (1 after the first): `baseMs` doubling per
 * failure up to `maxMs`, less up to `jitter` of itself at random so that clients that failed
 * together do not retry together.
 */
export function exponentialDelay(
  baseMs: number,
  maxMs: number,
  failures: number,
  jitter = 0,
  random: () => number = Math.random,
): number {
  const capped = Math.min(baseMs * 2 ** Math.max(0, Math.min(failures - 1, 30)), maxMs);
  return Math.round(capped * (1 - Math.min(1, Math.max(0, jitter)) * random()));
}

/** Sleeps `ms`, ending early (with the signal's reason) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    // Many sleepers share a job's signal: a lease keeps it at one listener (signal-lease.ts).
    const lease = signal ? leaseSignal(signal) : undefined;
    const onAbort = () => {
      clearTimeout(timer);
      lease?.release();
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      lease?.signal.removeEventListener("abort", onAbort);
      lease?.release();
      resolve();
    }, ms);
    lease?.signal.addEventListener("abort", onAbort, { once: true });
  });
}
