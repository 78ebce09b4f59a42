import { ApiError } from "../core/api/api-error.js";

/** Per-tenancy token bucket: `rps` requests a second with a burst of one second's worth. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly rps: number) {}

  /** Takes one token or throws 429 with the seconds until the next one. */
  take(tenantId: string): void {
    const now = Date.now();
    const b = this.buckets.get(tenantId) ?? { tokens: this.rps, at: now };
    b.tokens = Math.min(this.rps, b.tokens + ((now - b.at) / 1000) * this.rps);
    b.at = now;
    if (b.tokens < 1) {
      const reset = Math.max(1, Math.ceil((1 - b.tokens) / this.rps));
      this.buckets.set(tenantId, b);
      throw new ApiError("rate_limited", "request rate limit exceeded", [], {
        "Archivist-Rate-Limit-Reset": String(reset),
        "Retry-After": String(reset),
      });
    }
    b.tokens -= 1;
    this.buckets.set(tenantId, b);
  }
}
