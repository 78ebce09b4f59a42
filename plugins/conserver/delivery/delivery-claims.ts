import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { Coalescer, type Outcome } from "../../../src/batching/coalescer.js";
import { sleep } from "../queue/backoff.js";
import { TransientDeliveryError } from "./errors.js";

/** A vCon's asset on one backend. */
export interface ResolvedAsset {
  identity: string;
  /** Created by this very find-or-create: it cannot hold any event yet. */
  created: boolean;
  /** The idempotency key of the event that the creation recorded with the asset, if it carried one. */
  carried?: string;
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

/** Where the workers that deliver to one backend take turns at one event. */
export interface EventClaims {
  /**
   * Runs `fn` while no other worker sharing the claims runs one for the same `key` (an event's
   * idempotency key): two deliveries of one event at once would both look it up, find nothing
   * and both record it.
   */
  hold<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** Both kinds of claim, as one Redis gives them to every worker on it. */
export type DeliveryClaims = AssetClaims & EventClaims;

/** An asset identity as the API gives it; it goes into request paths, so nothing else is taken. */
export const IDENTITY = /^assets\/[A-Za-z0-9-]{1,64}$/;

export interface RedisDeliveryClaimsOptions {
  /** How long a claim lasts unless its holder renews it (a holder that dies frees it after this). */
  claimMs?: number;
  /** How long a worker waits for another's claim before handing its job back to the queue. */
  waitMs?: number;
  /** How long a vCon's recorded asset identity is kept. */
  recordS?: number;
  pollMs?: number;
}

// Per vCon (KEYS in pairs: claim, record; ARGV: the claim's lifetime, then one token per vCon):
// 1 and the recorded identity if there is one; else 0 and "" when the claim was free and is now
// ours, or 2 when it is taken. One round trip for all the vCons a busy worker claims at once.
const CLAIM_MANY = `local out = {}
for i = 1, #KEYS / 2 do
  local known = redis.call('GET', KEYS[2 * i])
  if known then
    out[2 * i - 1] = 1; out[2 * i] = known
  elseif redis.call('SET', KEYS[2 * i - 1], ARGV[i + 1], 'PX', ARGV[1], 'NX') then
    out[2 * i - 1] = 0; out[2 * i] = ''
  else
    out[2 * i - 1] = 2; out[2 * i] = ''
  end
end
return out`;
// Records each identity (when there is one) and frees each claim, deleting a claim only while it
// is still ours (it may have expired and been taken over). KEYS in pairs as above; ARGV: the
// record's lifetime, then token and identity per vCon.
const RECORD_AND_RELEASE_MANY = `for i = 1, #KEYS / 2 do
  if ARGV[2 * i + 1] ~= '' then redis.call('SET', KEYS[2 * i], ARGV[2 * i + 1], 'EX', ARGV[1]) end
  if redis.call('GET', KEYS[2 * i - 1]) == ARGV[2 * i] then redis.call('DEL', KEYS[2 * i - 1]) end
end
return 0`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

/** One vCon's claim as the scripts see it. */
interface ClaimKeys {
  claim: string;
  record: string;
  token: string;
}
type ClaimAnswer = { known: string } | { acquired: boolean };

const MAX_GROUP = 100;
const IN_FLIGHT = 2;

/**
 * Claims in Redis, so that workers in different processes never both create an asset for a
 * brand-new vCon. `<prefix>asset-claim:<key>` (`SET NX PX`) is held around find-or-create and
 * renewed while it runs; the holder then records the identity under `<prefix>asset:<key>`, where
 * the others find it without asking the backend. A holder that dies frees the claim after
 * `claimMs`; the next one finds the asset it may have created by the look-up.
 *
 * Event claims (`hold`, `<prefix>event-claim:<key>`) are the same claims with nothing recorded:
 * held around one event's look-up and record, so that two workers never both find it missing.
 *
 * Claims made at the same moment (a busy worker's new vCons) go to Redis as one script call, and
 * so do their releases: two round trips per group instead of two per vCon.
 */
export class RedisDeliveryClaims implements DeliveryClaims {
  private readonly claimMs: number;
  private readonly waitMs: number;
  private readonly recordS: number;
  private readonly pollMs: number;
  private readonly tokenPrefix = `${randomBytes(12).toString("hex")}:`;
  private issued = 0;
  private readonly claimGroups: Coalescer<ClaimKeys, ClaimAnswer>;
  private readonly releaseGroups: Coalescer<ClaimKeys & { identity: string }, void>;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = "archivist:",
    o: RedisDeliveryClaimsOptions = {},
  ) {
    this.claimMs = o.claimMs ?? 30_000;
    this.waitMs = o.waitMs ?? 2 * this.claimMs;
    this.recordS = o.recordS ?? 7 * 86_400;
    this.pollMs = o.pollMs ?? 25;
    this.claimGroups = new Coalescer({
      runGroup: (items) => this.claimMany(items),
      maxGroup: MAX_GROUP,
      inFlight: IN_FLIGHT,
    });
    this.releaseGroups = new Coalescer({
      runGroup: (items) => this.releaseMany(items),
      maxGroup: MAX_GROUP,
      inFlight: IN_FLIGHT,
    });
  }

  async resolve(
    key: string,
    findOrCreate: () => Promise<ResolvedAsset>,
    signal?: AbortSignal,
  ): Promise<ResolvedAsset> {
    const keys = {
      claim: `${this.prefix}asset-claim:${key}`,
      record: this.recordKey(key),
      token: this.nextToken(),
    };
    for (;;) {
      const known = await this.acquire(keys, `asset claim of ${key}`, signal);
      if (known === undefined) break;
      if (IDENTITY.test(known)) return { identity: known, created: false };
      // Not an identity we would put in a path: forget it, and find or create the asset again.
      await this.redis.del(keys.record);
    }
    // A failed find-or-create records nothing and only frees the claim.
    return this.whileHeld(keys, findOrCreate, (r) => r.identity);
  }

  async hold<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    // Nothing is ever recorded for an event: its record key stays empty, so the claim is all.
    const keys = {
      claim: `${this.prefix}event-claim:${key}`,
      record: `${this.prefix}event-record:${key}`,
      token: this.nextToken(),
    };
    await this.acquire(keys, `delivery claim of ${key}`, signal);
    return this.whileHeld(keys, fn, () => "");
  }

  /** The value an earlier holder recorded, or undefined once the claim is ours. */
  private async acquire(keys: ClaimKeys, what: string, signal?: AbortSignal): Promise<string | undefined> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const answer = await this.claimGroups.submit(keys);
      if ("known" in answer) return answer.known;
      if (answer.acquired) return undefined;
      if (Date.now() > deadline)
        throw new TransientDeliveryError(`another worker has held the ${what} too long`);
      await sleep(this.pollMs, signal);
    }
  }

  /** Runs `fn` under the claim, renewed while it runs; then records `recordOf` its result and frees it. */
  private async whileHeld<T>(keys: ClaimKeys, fn: () => Promise<T>, recordOf: (r: T) => string): Promise<T> {
    const renew = setInterval(() => {
      this.redis.eval(RENEW, 1, keys.claim, keys.token, this.claimMs).catch(() => undefined);
    }, this.claimMs / 3);
    let record = "";
    try {
      const result = await fn();
      record = recordOf(result);
      return result;
    } finally {
      clearInterval(renew);
      // Only a value the others rely on must reach Redis; an unreleased claim expires by itself.
      await this.releaseGroups.submit({ ...keys, identity: record }).catch((err: unknown) => {
        if (record) throw err;
      });
    }
  }

  private async claimMany(items: ClaimKeys[]): Promise<Array<Outcome<ClaimAnswer>>> {
    const keys = items.flatMap((i) => [i.claim, i.record]);
    const out = (await this.redis.eval(
      CLAIM_MANY,
      keys.length,
      ...keys,
      this.claimMs,
      ...items.map((i) => i.token),
    )) as Array<number | string>;
    return items.map((_, i) => {
      const code = out[2 * i];
      const value = out[2 * i + 1];
      if (code === 1) return { row: { known: typeof value === "string" ? value : "" } };
      return { row: { acquired: code === 0 } };
    });
  }

  private async releaseMany(
    items: Array<ClaimKeys & { identity: string }>,
  ): Promise<Array<Outcome<undefined>>> {
    const keys = items.flatMap((i) => [i.claim, i.record]);
    await this.redis.eval(
      RECORD_AND_RELEASE_MANY,
      keys.length,
      ...keys,
      this.recordS,
      ...items.flatMap((i) => [i.token, i.identity]),
    );
    return items.map(() => ({ row: undefined }));
  }

  /**
   * A holder's token: unique among all holders, which is all a token needs (a release deletes a
   * claim only while it still holds this holder's token). A random prefix per instance and a
   * counter, instead of 12 random bytes per claim (a synchronous call each, 2 % of a busy worker).
   */
  private nextToken(): string {
    this.issued += 1;
    return `${this.tokenPrefix}${this.issued.toString(36)}`;
  }

  private recordKey(key: string): string {
    return `${this.prefix}asset:${key}`;
  }
}
