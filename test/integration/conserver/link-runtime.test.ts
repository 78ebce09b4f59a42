import { Redis } from "ioredis";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { LinkContext, LinkModule } from "../../../plugins/conserver/links/types.js";
import type { ResolvedLink } from "../../../plugins/conserver/runtime/chain.js";
import { type LinkRuntime, startLinkRuntime } from "../../../plugins/conserver/runtime/redis-lists.js";
import { MemoryVconStore } from "../../../plugins/conserver/store/memory-store.js";
import { deleteKeys, REDIS_URL, redisUp, uniqueName, until } from "./redis-env.js";

const up = await redisUp();

/** A link that holds each vCon a moment, counts how many it holds at once, and fails on "bad-" uuids. */
function countingLink() {
  const seen: string[] = [];
  let holding = 0;
  let most = 0;
  const module: LinkModule = {
    defaultOptions: {},
    async run(uuid) {
      holding += 1;
      most = Math.max(most, holding);
      try {
        await new Promise((r) => setTimeout(r, 5));
        seen.push(uuid);
        if (uuid.startsWith("bad-")) throw new Error(`cannot read ${uuid}`);
        return uuid.startsWith("stop-") ? null : uuid;
      } finally {
        holding -= 1;
      }
    },
  };
  return { module, seen, most: () => most };
}

describe.skipIf(!up)("link runtime: batches popped from the ingress lists", () => {
  const prefix = uniqueName("lists");
  const ingress = `${prefix}-in`;
  const egress = `${prefix}-out`;
  const runtimes: LinkRuntime[] = [];
  const redis = new Redis(REDIS_URL);

  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
    await deleteKeys(redis, prefix);
    await deleteKeys(redis, `DLQ:${prefix}`);
    await deleteKeys(redis, `context:${prefix}`);
  });

  function start(link: LinkModule, o: { concurrency: number; popBatch?: number; blocking?: () => Redis }) {
    const links = new Map<string, ResolvedLink>([["count", { name: "count", module: link, options: {} }]]);
    const ctx: LinkContext = {
      store: new MemoryVconStore(),
      log: pino({ level: "silent" }),
      defaultHashMode: "python-json",
    };
    const runtime = startLinkRuntime({
      redisUrl: REDIS_URL,
      chains: [
        { name: "main", links: ["count"], ingressLists: [ingress], egressLists: [egress], enabled: true },
      ],
      links,
      ctx,
      concurrency: o.concurrency,
      ...(o.popBatch ? { popBatch: o.popBatch } : {}),
      ...(o.blocking ? { blockingConnection: o.blocking } : {}),
      popTimeoutS: 0.2,
      vconKeyPrefix: `${prefix}:vcon:`,
    });
    runtimes.push(runtime);
    return runtime;
  }

  it("runs each vCon once, never more at once than the concurrency, and passes each batch on", async () => {
    const link = countingLink();
    const good = Array.from({ length: 40 }, (_, i) => `v${String(i).padStart(2, "0")}`);
    await redis.rpush(`context:${ingress}:v07`, '{"traceparent":"00-a-b-01"}');
    await redis.set(`${prefix}:vcon:bad-1`, "{}");
    await redis.rpush(ingress, ...good.slice(0, 20), "bad-1", "stop-1", ...good.slice(20));
    const runtime = start(link.module, { concurrency: 6, popBatch: 4 });
    await until(() => runtime.processed === 42, 8000, "all popped vCons handled");
    expect([...link.seen].sort()).toEqual([...good, "bad-1", "stop-1"].sort());
    expect(link.most()).toBeGreaterThan(1);
    expect(link.most()).toBeLessThanOrEqual(6);
    expect((await redis.lrange(egress, 0, -1)).sort()).toEqual(good);
    expect(await redis.lrange(`DLQ:${ingress}`, 0, -1)).toEqual(["bad-1"]);
    // Why it was dead-lettered, beside the list: the error's code (none here) and message.
    expect(JSON.parse((await redis.hget(`DLQ:${ingress}:reasons`, "bad-1")) ?? "{}")).toMatchObject({
      code: "ERROR",
      message: "cannot read bad-1",
    });
    expect(await redis.ttl(`${prefix}:vcon:bad-1`)).toBeGreaterThan(600_000);
    expect(await redis.lrange(`context:${egress}:v07`, 0, -1)).toEqual(['{"traceparent":"00-a-b-01"}']);
    expect(await redis.exists(`context:${ingress}:v07`)).toBe(0);
    expect(await redis.llen(ingress)).toBe(0);
  });

  it("keeps the order of one loop's batches", async () => {
    const link = countingLink();
    const uuids = Array.from({ length: 25 }, (_, i) => `o${String(i).padStart(2, "0")}`);
    await redis.rpush(ingress, ...uuids);
    const runtime = start(link.module, { concurrency: 5 });
    await until(() => runtime.processed === 25, 8000, "all handled");
    expect(await redis.lrange(egress, 0, -1)).toEqual(uuids);
  });

  it("pops one vCon at a time from a Redis without BLMPOP", async () => {
    const link = countingLink();
    // A connection that answers BLMPOP as a Redis before 7.0 does.
    const old = () => {
      const c = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
      const call = c.call.bind(c) as (...args: unknown[]) => Promise<unknown>;
      (c as unknown as { call: (...args: unknown[]) => Promise<unknown> }).call = (...args) =>
        args[0] === "BLMPOP" ? Promise.reject(new Error("ERR unknown command 'BLMPOP'")) : call(...args);
      return c;
    };
    await redis.rpush(ingress, "p1", "p2", "p3", "p4");
    const runtime = start(link.module, { concurrency: 4, popBatch: 4, blocking: old });
    await until(() => runtime.processed === 4, 8000, "all handled");
    expect(link.most()).toBe(1);
    expect(await redis.lrange(egress, 0, -1)).toEqual(["p1", "p2", "p3", "p4"]);
  });
});
