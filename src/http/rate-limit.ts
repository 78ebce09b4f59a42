import { Redis } from "ioredis";
import { ApiError } from "../errors/api-error.js";

/** Per-tenancy request rate limiting: 429 with the seconds until requests are accepted again. */
export interface RateLimiter {
  /** Counts one request; throws 429 over the limit. */
  take(tenantId: string): Promise<void>;
  /**
   * Counts as many of `units` more requests as the limit admits now, in one step (concurrent
   * callers cannot both take the last ones), and says how many: the other items of a batch
   * (`assets:batchWithEvents`, `assets/-/events:batch`), each a request of its own to the limit.
   */
  takeUpTo(tenantId: string, units: number): Promise<number>;
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
    async takeUpTo(tenantId, units) {
      const b = refilled(tenantId);
      const n = Math.max(0, Math.min(units, Math.floor(b.tokens)));
      b.tokens -= n;
      return n;
    },
    ping: async () => undefined,
    close: async () => undefined,
  };
}

// As many of ARGV[2] units as the window (KEYS[1]) has room for under ARGV[1], counted in one step.
const TAKE_UP_TO = `local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local n = math.max(0, math.min(tonumber(ARGV[2]), tonumber(ARGV[1]) - count))
if n > 0 then
  redis.call('INCRBY', KEYS[1], n)
  redis.call('EXPIRE', KEYS[1], 2)
end
return n`;

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
    async takeUpTo(tenantId, units) {
      if (units <= 0) return 0;
      const key = `archivist:rate:${tenantId}:${Math.floor(Date.now() / 1000)}`;
      return Number(await redis.eval(TAKE_UP_TO, 1, key, rps, units));
    },
    async ping() {
      await redis.ping();
    },
    async close() {
      redis.disconnect();
    },
  };
}
