import { Redis } from "ioredis";
import { ApiError } from "../core/api/api-error.js";

/** Per-tenancy request rate limiting: 429 with the seconds until requests are accepted again. */
export interface RateLimiter {
  /** Counts one request; throws 429 over the limit. */
  take(tenantId: string): Promise<void>;
  /**
   * Counts `units` more requests without refusing the one under way: the other items of a batch
   * admitted as one request (`assets:batchWithEvents`, `assets/-/events:batch`), which later
   * requests then pay for.
   */
  charge(tenantId: string, units: number): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

const limited = (reset: number) =>
  new ApiError("rate_limited", "request rate limit exceeded", [], {
    "Archivist-Rate-Limit-Reset": String(reset),
    "Retry-After": String(reset),
  });

/** Token bucket in this process: `rps` requests a second with a burst of one second's worth. */
export function memoryRateLimiter(rps: number): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const refilled = (tenantId: string) => {
    const now = Date.now();
    const b = buckets.get(tenantId) ?? { tokens: rps, at: now };
    b.tokens = Math.min(rps, b.tokens + ((now - b.at) / 1000) * rps);
    b.at = now;
    buckets.set(tenantId, b);
    return b;
  };
  return {
    async take(tenantId) {
      const b = refilled(tenantId);
      if (b.tokens < 1) throw limited(Math.max(1, Math.ceil((1 - b.tokens) / rps)));
      b.tokens -= 1;
    },
    async charge(tenantId, units) {
      // The bucket may go below zero: the debt is paid by the requests refused until it refills.
      if (units > 0) refilled(tenantId).tokens -= units;
    },
    ping: async () => undefined,
    close: async () => undefined,
  };
}

/** Fixed one-second windows counted in Redis, so every API process shares one limit per tenancy. */
export function redisRateLimiter(rps: number, url: string): RateLimiter {
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
  return {
    async take(tenantId) {
      const second = Math.floor(Date.now() / 1000);
      const key = `archivist:rate:${tenantId}:${second}`;
      const [[, count]] = (await redis.multi().incr(key).expire(key, 2).exec()) as [[unknown, number]];
      if (count > rps) throw limited(1);
    },
    async charge(tenantId, units) {
      if (units <= 0) return;
      // Within the current window only: a fixed window forgets at its end what it counted.
      const key = `archivist:rate:${tenantId}:${Math.floor(Date.now() / 1000)}`;
      await redis.multi().incrby(key, units).expire(key, 2).exec();
    },
    async ping() {
      await redis.ping();
    },
    async close() {
      redis.disconnect();
    },
  };
}
