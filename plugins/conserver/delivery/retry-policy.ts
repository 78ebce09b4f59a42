/** How the delivery worker waits inside one job attempt before handing the job back to the queue. */
export interface RetryPolicy {
  /** Retries of a 5xx or network failure within one attempt. */
  inlineRetries: number;
  /** First backoff delay; doubles per failure, with jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** 429 answers waited out within one attempt. */
  maxRateLimitWaits: number;
  /** A longer `Archivist-Rate-Limit-Reset` hands the job back to the queue with that delay instead. */
  maxRateLimitWaitMs: number;
  requestTimeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  inlineRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 10_000,
  maxRateLimitWaits: 5,
  maxRateLimitWaitMs: 120_000,
  requestTimeoutMs: 30_000,
};

/** Milliseconds a 429 asks to wait: `Archivist-Rate-Limit-Reset` (seconds), else `Retry-After`, else undefined. */
export function rateLimitWaitMs(headers: { get(name: string): string | null }): number | undefined {
  for (const name of ["archivist-rate-limit-reset", "retry-after"]) {
    const v = headers.get(name);
    if (v === null || v.trim() === "") continue;
    const seconds = Number(v);
    if (Number.isFinite(seconds)) return Math.max(0, Math.round(seconds * 1000));
  }
  return undefined;
}
