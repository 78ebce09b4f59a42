import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { sleep } from "../../../src/queue/backoff.js";
import { TransientDeliveryError } from "./errors.js";

/** A vCon's asset on one backend. */
export interface ResolvedAsset {
  identity: string;
  /** Created by this very find-or-create: it cannot hold any event yet. */
  created: boolean;
}

/** Where the workers that deliver to one backend agree on each vCon's asset. */
export interface AssetClaims {
  /**
   * The vCon's asset: one another worker has recorded, else what `findOrCreate` gives, run alone
   * among all workers sharing the claims.
   */
  resolve(
    key: string,
    findOrCreate: () => Promise<ResolvedAsset>,
    signal?: AbortSignal,
  ): Promise<ResolvedAsset>;
}

/** An asset identity as the API gives it; it goes into request paths, so nothing else is taken. */
export const IDENTITY = /^assets\/[A-Za-z0-9-]{1,64}$/;

export interface RedisAssetClaimsOptions {
  /** How long a claim lasts unless its holder renews it (a holder that dies frees it after this). */
  claimMs?: number;
  /** How long a worker waits for another's claim before handing its job back to the queue. */
  waitMs?: number;
  /** How long a vCon's recorded asset identity is kept. */
  recordS?: number;
  pollMs?: number;
}

// Deletes or extends the claim only while it is still ours (it may have expired and been taken over).
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

/**
 * Claims in Redis, so that workers in different processes never both create an asset for a
 * brand-new vCon. `<prefix>asset-claim:<key>` (`SET NX PX`) is held around find-or-create and
 * renewed while it runs; the holder then records the identity under `<prefix>asset:<key>`, where
 * the others find it without asking the backend. A holder that dies frees the claim after
 * `claimMs`; the next one finds the asset it may have created by the look-up.
 */
export class RedisAssetClaims implements AssetClaims {
  private readonly claimMs: number;
  private readonly waitMs: number;
  private readonly recordS: number;
  private readonly pollMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = "archivist:",
    o: RedisAssetClaimsOptions = {},
  ) {
    this.claimMs = o.claimMs ?? 30_000;
    this.waitMs = o.waitMs ?? 2 * this.claimMs;
    this.recordS = o.recordS ?? 7 * 86_400;
    this.pollMs = o.pollMs ?? 25;
  }

  async resolve(
    key: string,
    findOrCreate: () => Promise<ResolvedAsset>,
    signal?: AbortSignal,
  ): Promise<ResolvedAsset> {
    const claim = `${this.prefix}asset-claim:${key}`;
    const token = randomBytes(12).toString("hex");
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const known = await this.recorded(key);
      if (known) return { identity: known, created: false };
      if ((await this.redis.set(claim, token, "PX", this.claimMs, "NX")) === "OK") break;
      if (Date.now() > deadline)
        throw new TransientDeliveryError(`another worker has held the asset claim of ${key} too long`);
      await sleep(this.pollMs, signal);
    }
    const renew = setInterval(() => {
      this.redis.eval(RENEW, 1, claim, token, this.claimMs).catch(() => undefined);
    }, this.claimMs / 3);
    try {
      // The previous holder may have recorded the asset between our look and our claim.
      const known = await this.recorded(key);
      if (known) return { identity: known, created: false };
      const resolved = await findOrCreate();
      await this.redis.set(this.recordKey(key), resolved.identity, "EX", this.recordS);
      return resolved;
    } finally {
      clearInterval(renew);
      await this.redis.eval(RELEASE, 1, claim, token).catch(() => undefined);
    }
  }

  private recordKey(key: string): string {
    return `${this.prefix}asset:${key}`;
  }

  private async recorded(key: string): Promise<string | undefined> {
    const v = await this.redis.get(this.recordKey(key));
    return v !== null && IDENTITY.test(v) ? v : undefined;
  }
}
