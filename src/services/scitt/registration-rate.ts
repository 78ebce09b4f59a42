import { ApiError } from "../../errors/api-error.js";

/**
 * The open SCITT logs' own registration rate, per tenancy and per process: a token bucket of the
 * log policy's requests a second, with a second's burst. Registration by signature needs no token,
 * so the per-tenancy API rate limit does not reach it.
 */
export class RegistrationRate {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /** Counts one registration in `tenantId`'s log; 429 with Retry-After over `rps`. */
  take(tenantId: string, rps: number): void {
    const now = Date.now();
    const b = this.buckets.get(tenantId) ?? { tokens: rps, at: now };
    b.tokens = Math.min(rps, b.tokens + ((now - b.at) / 1000) * rps);
    b.at = now;
    this.buckets.set(tenantId, b);
    if (b.tokens < 1) {
      const wait = String(Math.max(1, Math.ceil((1 - b.tokens) / rps)));
      throw new ApiError("rate_limited", "registration rate limit exceeded", [], { "Retry-After": wait });
    }
    b.tokens -= 1;
  }
}
