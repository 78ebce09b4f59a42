import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { ChainConfig } from "../config/types.js";
import type { ConserverMetrics } from "../delivery/metrics.js";
import type { LinkContext } from "../links/types.js";
import { type ResolvedLink, runChain } from "./chain.js";

/** vcon-server's expiries: a dead-lettered vCon is kept a week, a trace context a day. */
const DLQ_EXPIRY_S = 604_800;
const CONTEXT_EXPIRY_S = 86_400;

export interface LinkRuntimeOptions {
  redisUrl: string;
  /** Commands other than the blocking pop (pushes, expiries); a connection of its own if absent. */
  redis?: Redis;
  chains: ChainConfig[];
  links: Map<string, ResolvedLink>;
  ctx: LinkContext;
  /** vCons run at once (each loop has its own blocking connection), as CONSERVER_VCON_CONCURRENCY. */
  concurrency?: number;
  /** BLPOP timeout; also bounds how long `close` waits (vcon-server uses 15 s). */
  popTimeoutS?: number;
  vconKeyPrefix?: string;
  metrics?: ConserverMetrics;
}

export interface LinkRuntime {
  /** Resolves when the runtime has stopped after the vCon in hand. */
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

/**
 * The conserver's Redis conventions: BLPOP uuids from ingress lists (producers RPUSH: FIFO), run the
 * list's chain, RPUSH the result to the egress lists, and on failure RPUSH the uuid to
 * `DLQ:<ingress list>` and keep `vcon:<uuid>` a week.
 */
export function startLinkRuntime(o: LinkRuntimeOptions): LinkRuntime {
  const log = o.ctx.log;
  const byList = chainsByList(o.chains, log);
  const lists = [...byList.keys()];
  const redis = o.redis ?? new Redis(o.redisUrl);
  redis.on("error", (err) => log.debug({ err }, "link runtime redis error"));
  const blockers: Redis[] = [];
  let closed = false;
  let processed = 0;

  async function handle(list: string, uuid: string): Promise<void> {
    const chain = byList.get(list) as ChainConfig;
    const context = await redis.lpop(`context:${list}:${uuid}`);
    try {
      const out = await runChain(chain, uuid, o.links, o.ctx, o.metrics);
      if (out === null) return;
      for (const egress of chain.egressLists) {
        if (context !== null) {
          await redis.rpush(`context:${egress}:${out}`, context);
          await redis.expire(`context:${egress}:${out}`, CONTEXT_EXPIRY_S);
        }
        await redis.rpush(egress, out);
      }
    } catch (err) {
      log.error({ err, chain: chain.name, list, vconUuid: uuid }, "chain failed; vCon dead-lettered");
      await redis.rpush(`DLQ:${list}`, uuid);
      await redis.expire(`${o.vconKeyPrefix ?? "vcon:"}${uuid}`, DLQ_EXPIRY_S);
    }
  }

  async function loop(blocking: Redis): Promise<void> {
    while (!closed && lists.length > 0) {
      let popped: [string, string] | null = null;
      try {
        popped = await blocking.blpop(...lists, o.popTimeoutS ?? 1);
      } catch (err) {
        if (closed) break;
        log.warn({ err }, "BLPOP failed; retrying");
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (!popped) continue;
      try {
        await handle(popped[0], popped[1]);
      } catch (err) {
        // Redis failed while dead-lettering: the uuid is only in this log line now.
        log.error({ err, list: popped[0], vconUuid: popped[1] }, "vCon could not be dead-lettered");
      }
      processed += 1;
    }
  }

  const loops = Array.from({ length: Math.max(1, o.concurrency ?? 1) }, () => {
    const blocking = new Redis(o.redisUrl, { maxRetriesPerRequest: null });
    blocking.on("error", (err) => log.debug({ err }, "link runtime redis error"));
    blockers.push(blocking);
    return loop(blocking);
  });

  return {
    get processed() {
      return processed;
    },
    async close() {
      closed = true;
      await Promise.all(loops);
      await Promise.allSettled([
        ...blockers.map((b) => b.quit()),
        o.redis ? Promise.resolve() : redis.quit(),
      ]);
    },
  };
}
