/**
 * Failed attempts per key within a fixed window: after `limit` failures a key is refused
 * until its window ends. Pure (the caller passes the time), so the token endpoint's guard
 * is testable without waiting.
 */
export class FailureWindow {
  private readonly windows = new Map<string, { failures: number; endsAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Seconds until `key` may try again, or 0 when it may now. */
  retryAfter(key: string, now: number): number {
    const w = this.windows.get(key);
    if (!w || w.endsAt <= now) return 0;
    return w.failures >= this.limit ? Math.max(1, Math.ceil((w.endsAt - now) / 1000)) : 0;
  }

  /** Counts one failure of `key`. */
  fail(key: string, now: number): void {
    let w = this.windows.get(key);
    if (!w || w.endsAt <= now) {
      // Many distinct keys (a spray of addresses) cannot grow the map without bound.
      if (this.windows.size >= this.maxKeys) this.prune(now);
      w = { failures: 0, endsAt: now + this.windowMs };
      this.windows.set(key, w);
    }
    w.failures++;
  }

  /** Forgets `key` (a success for a client id). */
  clear(key: string): void {
    this.windows.delete(key);
  }

  private prune(now: number): void {
    for (const [k, w] of this.windows) if (w.endsAt <= now) this.windows.delete(k);
    if (this.windows.size >= this.maxKeys) this.windows.clear();
  }
}
