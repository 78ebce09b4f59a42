import type { Logger } from "pino";
import { RedisWakeSignal } from "./redis-wake-signal.js";
import { LocalWakeSignal, type WakeSignal } from "./wake-signal.js";

/** A wake signal: Redis pub/sub when a Redis URL is given, else in-process. */
export function createWakeSignal(
  opts: { redisUrl?: string; prefix?: string; log?: Logger } = {},
): WakeSignal {
  if (opts.redisUrl) return new RedisWakeSignal({ ...opts, redisUrl: opts.redisUrl });
  return new LocalWakeSignal();
}
