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

// The recorded identity if there is one; else the claim, when free (`""` answers that it is taken).
// One round trip where GET, SET NX and GET again took three: these run once per new vCon.
const CLAIM = `local known = redis.call('GET', KEYS[2])
if known then return {1, known} end
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return {0, ''} end
return {0, false}`;
// Records the identity and frees the claim in one step, deleting the claim only while it is still
// ours (it may have expired and been taken over).
const RECORD_AND_RELEASE = `if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3]) end
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
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
    const record = this.recordKey(key);
    const token = randomBytes(12).toString("hex");
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const [isKnown, value] = (await this.redis.eval(CLAIM, 2, claim, record, token, this.claimMs)) as [
        number,
        string | null,
      ];
      if (isKnown === 1) {
        if (typeof value === "string" && IDENTITY.test(value)) return { identity: value, created: false };
        // Not an identity we would put in a path: forget it, and find or create the asset again.
        await this.redis.del(record);
        continue;
      }
      if (value === "") break;
      if (Date.now() > deadline)
        throw new TransientDeliveryError(`another worker has held the asset claim of ${key} too long`);
      await sleep(this.pollMs, signal);
    }
    const renew = setInterval(() => {
      this.redis.eval(RENEW, 1, claim, token, this.claimMs).catch(() => undefined);
    }, this.claimMs / 3);
    let identity = "";
    try {
      const resolved = await findOrCreate();
      identity = resolved.identity;
      return resolved;
    } finally {
      clearInterval(renew);
      // A failed find-or-create records nothing and only frees the claim.
      await this.redis
        .eval(RECORD_AND_RELEASE, 2, claim, record, token, identity, this.recordS)
        .catch((err: unknown) => {
          if (identity) throw err;
        });
    }
  }

  private recordKey(key: string): string {
    return `${this.prefix}asset:${key}`;
  }
}
