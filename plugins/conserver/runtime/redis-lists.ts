import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { ChainConfig } from "../config/types.js";
import { deadLetterReason, ingressDlqReasonKey } from "../dead-letters/ingress-list.js";
import type { ConserverMetrics } from "../delivery/metrics.js";
import type { LinkContext } from "../links/types.js";
import { type ResolvedLink, runChain } from "./chain.js";

/** vcon-server's expiries: a dead-lettered vCon is kept a week, a trace context a day. */
const DLQ_EXPIRY_S = 604_800;
const CONTEXT_EXPIRY_S = 86_400;
/**
 * vCons one pop takes when `popBatch` is not given: half the concurrency (two loops, so one pops
 * while the other's batch runs), at least 8 and at most 32. Every batch costs the runtime a pop,
 * a read of its trace contexts and a push onward, each a write to Redis; at 64 in hand, two loops
 * of 32 instead of eight of 8 cut the chain's CPU per vCon by ~5 % (docs/performance.md).
 */
const POP_BATCH = { min: 8, max: 32 } as const;

export interface LinkRuntimeOptions {
  redisUrl: string;
  /** Commands other than the blocking pops (contexts, pushes, expiries); a connection of its own if absent. */
  redis?: Redis;
  chains: ChainConfig[];
  links: Map<string, ResolvedLink>;
  ctx: LinkContext;
  /**
   * vCons in hand at once, as CONSERVER_VCON_CONCURRENCY (default 1). It also bounds what a
   * crash can take off the ingress lists without running: the vCons in hand.
   */
  concurrency?: number;
  /**
   * vCons one pop takes (BLMPOP COUNT; default half of `concurrency`, within 8–32). The runtime
   * runs `concurrency / popBatch` loops, each with its own blocking connection, and each runs
   * its batch's chains side by side; the batch's trace contexts, egress pushes and dead letters
   * go to Redis in one round trip each.
   */
  popBatch?: number;
  /** Pop timeout; also bounds how long `close` waits (vcon-server uses 15 s). */
  popTimeoutS?: number;
  vconKeyPrefix?: string;
  metrics?: ConserverMetrics;
  /** Opens each loop's blocking connection (default: a new connection to `redisUrl`). */
  blockingConnection?: () => Redis;
}

export interface LinkRuntime {
  /** Resolves when the runtime has stopped after the vCons in hand. */
  close(): Promise<void>;
  readonly processed: number;
}

/** Each ingress list names one chain; as in vcon-server, the last chain defined wins. */
function chainsByList(chains: ChainConfig[], log: Logger): Map<string, ChainConfig> {
  const map = new Map<string, ChainConfig>();
  for (const c of chains.filter((c) => c.enabled)) {
    for (const list of c.ingressLists) {
      if (map.has(list)) log.warn({ list, chain: c.name }, "ingress list used by two chains; the later wins");
      map.set(list, c);
    }
  }
  return map;
}

/** How many vCons each loop pops: `concurrency` split into batches of at most `popBatch`. */
export function loopBatches(concurrency: number, popBatch?: number): number[] {
  const total = Math.max(1, Math.floor(concurrency));
  const wanted = popBatch ?? Math.min(POP_BATCH.max, Math.max(POP_BATCH.min, Math.ceil(total / 2)));
  const batch = Math.max(1, Math.min(total, Math.floor(wanted)));
  const sizes: number[] = [];
  for (let left = total; left > 0; left -= batch) sizes.push(Math.min(batch, left));
  return sizes;
}

/** One vCon's end in its chain: the uuid to pass on (null: stopped by a link), or the failure. */
type Outcome = { out: string | null } | { err: unknown };

class ListRuntime implements LinkRuntime {
  processed = 0;
  private closed = false;
  /** False once the Redis answered that it has no BLMPOP (before 7.0): loops then BLPOP one at a time. */
  private multiPop = true;
  private readonly byList: Map<string, ChainConfig>;
  private readonly redis: Redis;
  private readonly blockers: Redis[] = [];
  private readonly loops: Promise<void>[];

  constructor(private readonly o: LinkRuntimeOptions) {
    this.byList = chainsByList(o.chains, o.ctx.log);
    this.redis = o.redis ?? this.connect({});
    this.loops = loopBatches(o.concurrency ?? 1, o.popBatch).map((size) => {
      const blocking = o.blockingConnection?.() ?? this.connect({ maxRetriesPerRequest: null });
      this.blockers.push(blocking);
      return this.loop(blocking, size);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.loops);
    const own = this.o.redis ? [] : [this.redis];
    await Promise.allSettled([...this.blockers, ...own].map((c) => c.quit()));
  }

  private connect(opts: { maxRetriesPerRequest?: null }): Redis {
    const c = new Redis(this.o.redisUrl, opts);
    c.on("error", (err) => this.o.ctx.log.debug({ err }, "link runtime redis error"));
    return c;
  }

  private async loop(blocking: Redis, size: number): Promise<void> {
    const lists = [...this.byList.keys()];
    while (!this.closed && lists.length > 0) {
      let popped: { list: string; uuids: string[] } | null;
      try {
        popped = await this.pop(blocking, lists, size);
      } catch (err) {
        if (this.closed) break;
        this.o.ctx.log.warn({ err }, "popping the ingress lists failed; retrying");
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (!popped) continue;
      await this.handle(popped.list, popped.uuids);
      this.processed += popped.uuids.length;
    }
  }

  /**
   * Up to `size` uuids from the first non-empty list, in list order as BLPOP takes them, waiting
   * up to the pop timeout when all are empty; null on time-out.
   */
  private async pop(
    blocking: Redis,
    lists: string[],
    size: number,
  ): Promise<{ list: string; uuids: string[] } | null> {
    const timeout = this.o.popTimeoutS ?? 1;
    if (this.multiPop) {
      try {
        const r = (await blocking.call("BLMPOP", timeout, lists.length, ...lists, "LEFT", "COUNT", size)) as
          | [string, string[]]
          | null;
        return r && { list: r[0], uuids: r[1] };
      } catch (err) {
        if (!/unknown command/i.test(err instanceof Error ? err.message : String(err))) throw err;
        this.multiPop = false;
        this.o.ctx.log.warn("this Redis has no BLMPOP (it needs 7.0): popping one vCon at a time");
      }
    }
    const one = await blocking.blpop(...lists, timeout);
    return one && { list: one[0], uuids: [one[1]] };
  }

  /** Runs the list's chain on each popped vCon side by side, then passes the batch on in one round trip. */
  private async handle(list: string, uuids: string[]): Promise<void> {
    const chain = this.byList.get(list) as ChainConfig;
    // The contexts leave the ingress side whatever the chain does, as vcon-server's LPOP takes them.
    const contexts = this.redis
      .pipeline(uuids.map((uuid) => ["lpop", `context:${list}:${uuid}`]))
      .exec()
      .catch((err: unknown) => {
        this.o.ctx.log.warn({ err, list }, "trace contexts could not be read");
        return null;
      });
    const outcomes = await Promise.all(
      uuids.map((uuid) =>
        runChain(chain, uuid, this.o.links, this.o.ctx, this.o.metrics).then(
          (out): Outcome => ({ out }),
          (err: unknown): Outcome => ({ err }),
        ),
      ),
    );
    const read = await contexts;
    const onward = this.redis.pipeline();
    outcomes.forEach((outcome, i) => {
      const uuid = uuids[i] as string;
      if ("err" in outcome) {
        this.o.ctx.log.error(
          { err: outcome.err, chain: chain.name, list, vconUuid: uuid },
          "chain failed; vCon dead-lettered",
        );
        // Keep the vCon before announcing it: whoever reads the DLQ finds it there.
        onward.expire(`${this.o.vconKeyPrefix ?? "vcon:"}${uuid}`, DLQ_EXPIRY_S);
        // Why, beside the list: an operator (dlq list --ingress) reads it without the logs.
        onward.hset(ingressDlqReasonKey(list), uuid, JSON.stringify(deadLetterReason(outcome.err)));
        onward.expire(ingressDlqReasonKey(list), DLQ_EXPIRY_S);
        onward.rpush(`DLQ:${list}`, uuid);
        return;
      }
      if (outcome.out === null) return;
      const entry = read?.[i];
      const context = entry && !entry[0] && typeof entry[1] === "string" ? entry[1] : null;
      for (const egress of chain.egressLists) {
        if (context !== null) {
          onward.rpush(`context:${egress}:${outcome.out}`, context);
          onward.expire(`context:${egress}:${outcome.out}`, CONTEXT_EXPIRY_S);
        }
        onward.rpush(egress, outcome.out);
      }
    });
    if (onward.length === 0) return;
    try {
      const replies = (await onward.exec()) ?? [];
      const failed = replies.find(([err]) => err);
      if (failed) throw failed[0];
    } catch (err) {
      // Redis failed while passing the batch on: the uuids are only in this log line now.
      this.o.ctx.log.error({ err, list, vconUuids: uuids }, "vCons could not be passed on or dead-lettered");
    }
  }
}

/**
 * The conserver's Redis conventions: pop uuids from ingress lists (producers RPUSH: FIFO), run the
 * list's chain, RPUSH the result to the egress lists (with its trace context), and on failure RPUSH
 * the uuid to `DLQ:<ingress list>` and keep `vcon:<uuid>` a week. Each loop pops a batch at once
 * (BLMPOP, Redis 7; BLPOP one at a time on an older Redis).
 */
export function startLinkRuntime(o: LinkRuntimeOptions): LinkRuntime {
  return new ListRuntime(o);
}
