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

class ListRuntime implements LinkRuntime {
  processed = 0;
  private closed = false;
  private readonly byList: Map<string, ChainConfig>;
  private readonly redis: Redis;
  private readonly blockers: Redis[] = [];
  private readonly loops: Promise<void>[];

  constructor(private readonly o: LinkRuntimeOptions) {
    this.byList = chainsByList(o.chains, o.ctx.log);
    this.redis = o.redis ?? this.connect({});
    this.loops = Array.from({ length: Math.max(1, o.concurrency ?? 1) }, () => {
      const blocking = this.connect({ maxRetriesPerRequest: null });
      this.blockers.push(blocking);
      return this.loop(blocking);
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

  private async loop(blocking: Redis): Promise<void> {
    const lists = [...this.byList.keys()];
    while (!this.closed && lists.length > 0) {
      let popped: [string, string] | null = null;
      try {
        popped = await blocking.blpop(...lists, this.o.popTimeoutS ?? 1);
      } catch (err) {
        if (this.closed) break;
        this.o.ctx.log.warn({ err }, "BLPOP failed; retrying");
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (!popped) continue;
      try {
        await this.handle(popped[0], popped[1]);
      } catch (err) {
        // Redis failed while dead-lettering: the uuid is only in this log line now.
        this.o.ctx.log.error(
          { err, list: popped[0], vconUuid: popped[1] },
          "vCon could not be dead-lettered",
        );
      }
      this.processed += 1;
    }
  }

  private async handle(list: string, uuid: string): Promise<void> {
    const chain = this.byList.get(list) as ChainConfig;
    const context = await this.redis.lpop(`context:${list}:${uuid}`);
    let out: string | null;
    try {
      out = await runChain(chain, uuid, this.o.links, this.o.ctx, this.o.metrics);
    } catch (err) {
      this.o.ctx.log.error(
        { err, chain: chain.name, list, vconUuid: uuid },
        "chain failed; vCon dead-lettered",
      );
      // Keep the vCon before announcing it: whoever reads the DLQ finds it there.
      await this.redis.expire(`${this.o.vconKeyPrefix ?? "vcon:"}${uuid}`, DLQ_EXPIRY_S);
      await this.redis.rpush(`DLQ:${list}`, uuid);
      return;
    }
    if (out !== null) await this.egress(chain, out, context);
  }

  private async egress(chain: ChainConfig, uuid: string, context: string | null): Promise<void> {
    for (const egress of chain.egressLists) {
      if (context !== null) {
        await this.redis.rpush(`context:${egress}:${uuid}`, context);
        await this.redis.expire(`context:${egress}:${uuid}`, CONTEXT_EXPIRY_S);
      }
      await this.redis.rpush(egress, uuid);
    }
  }
}

/**
 * The conserver's Redis conventions: BLPOP uuids from ingress lists (producers RPUSH: FIFO), run the
 * list's chain, RPUSH the result to the egress lists (with its trace context), and on failure RPUSH
 * the uuid to `DLQ:<ingress list>` and keep `vcon:<uuid>` a week.
 */
export function startLinkRuntime(o: LinkRuntimeOptions): LinkRuntime {
  return new ListRuntime(o);
}
