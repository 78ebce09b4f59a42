import { ConserverError } from "../errors.js";
import type { DeliveryConfig } from "./types.js";

export const DELIVERY_DEFAULTS: DeliveryConfig = {
  queue: "archivist-delivery",
  prefix: "archivist",
  attempts: 10,
  backoffMs: 1000,
  maxBackoffMs: 300_000,
  // A job mostly waits on the backend (three requests per new vCon): with 4 at once one worker
  // delivered 87 new vCons/s to this service on PostgreSQL, with 32 about 120.
  concurrency: 32,
  requestTimeoutMs: 30_000,
};

const NUMBERS: Array<[keyof DeliveryConfig, string, number]> = [
  ["attempts", "attempts", 1],
  ["backoffMs", "backoff_ms", 0],
  ["maxBackoffMs", "max_backoff_ms", 0],
  ["concurrency", "concurrency", 1],
  ["requestTimeoutMs", "request_timeout_ms", 1],
];

/** The `delivery:` section with defaults; errors name the key. */
export function parseDelivery(s: Record<string, unknown>): DeliveryConfig {
  const out: DeliveryConfig = { ...DELIVERY_DEFAULTS };
  for (const key of ["queue", "prefix"] as const) {
    const v = s[key];
    if (v === undefined) continue;
    if (typeof v !== "string" || !/^[A-Za-z0-9_.-]+$/.test(v))
      throw new ConserverError("CONFIG_INVALID", `delivery.${key}: must be a name of letters, digits, _ . -`);
    out[key] = v;
  }
  for (const [field, key, min] of NUMBERS) {
    const v = s[key];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min)
      throw new ConserverError("CONFIG_INVALID", `delivery.${key}: must be a whole number >= ${min}`);
    (out[field] as number) = v;
  }
  return out;
}
