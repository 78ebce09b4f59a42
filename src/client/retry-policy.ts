/**
 * How long a client keeps trying one request: retries of failures that may pass, and waits the
 * service asks for. The conserver's delivery hands a job back to its queue beyond these.
 */
export interface RetryPolicy {
  /** Retries of a 5xx or network failure within one call. */
  inlineRetries: number;
  /** First backoff delay; doubles per failure, with jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** 429 answers waited out within one call. */
  maxRateLimitWaits: number;
  /** A longer `Archivist-Rate-Limit-Reset` ends the call with that wait in its error instead. */
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
