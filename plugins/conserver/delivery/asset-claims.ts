import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { sleep } from "../../../src/queue/backoff.js";

/** Runs find-or-create of one vCon's asset alone among all workers that share the claims. */
export interface AssetClaims {
  withClaim<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

const TTL_MS = 30_000;
const POLL_MS = 25;

// Deletes the claim only if it is still ours (it may have expired and been taken over).
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * Claims in Redis (`SET key token NX PX`), so that workers in different processes do not both
 * create an asset for a brand-new vCon: the second waits for the first, then finds its asset.
 * A claim expires after 30 s, so a worker that dies holding one delays the vCon, never blocks it.
 */
export class RedisAssetClaims implements AssetClaims {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = "archivist:asset-claim:",
  ) {}

  async withClaim<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const k = `${this.prefix}${key}`;
    const token = randomBytes(12).toString("hex");
    const deadline = Date.now() + TTL_MS;
    while ((await this.redis.set(k, token, "PX", TTL_MS, "NX")) !== "OK") {
      if (Date.now() > deadline) break; // the holder is gone; its claim has expired or will
      await sleep(POLL_MS);
    }
    try {
      return await fn();
    } finally {
      await this.redis.eval(RELEASE, 1, k, token).catch(() => undefined);
    }
  }
}
