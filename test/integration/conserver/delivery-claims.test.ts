import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AssetResolver } from "../../../plugins/conserver/delivery/assets.js";
import { ArchivistClient } from "../../../plugins/conserver/delivery/client.js";
import {
  RedisDeliveryClaims,
  type ResolvedAsset,
} from "../../../plugins/conserver/delivery/delivery-claims.js";
import { TransientDeliveryError } from "../../../plugins/conserver/delivery/errors.js";
import { TokenSource } from "../../../plugins/conserver/delivery/token-source.js";
import { DEFAULT_RETRY_POLICY } from "../../../src/client/index.js";
import { FakeArchivist } from "../../unit/conserver/fake-archivist.js";
import { deleteKeys, REDIS_URL, redisUp, uniqueName } from "./redis-env.js";

const up = await redisUp();
const backend = { url: "http://fake", clientId: "client-1", clientSecret: "secret-1" };

// Two workers are two resolvers, each with its own Redis connection, as in two processes.
describe.skipIf(!up)("asset claims shared through Redis", () => {
  const prefix = uniqueName("claims");
  const connections: Redis[] = [];
  let fake: FakeArchivist;
  beforeAll(() => {
    fake = new FakeArchivist();
    // A slow create leaves both workers time to see no asset: the race the claims close.
    fake.hold = (route) => new Promise((r) => setTimeout(r, route === "assets.create" ? 150 : 0));
  });
  afterAll(async () => {
    if (connections[0]) await deleteKeys(connections[0], prefix);
    for (const c of connections) await c.quit();
  });

  const client = () =>
    new ArchivistClient(backend, new TokenSource(backend, fake.fetch), {
      fetch: fake.fetch,
      policy: DEFAULT_RETRY_POLICY,
      signal: new AbortController().signal,
    });
  const worker = (claims: boolean) => {
    const redis = new Redis(REDIS_URL);
    connections.push(redis);
    return new AssetResolver(claims ? new RedisDeliveryClaims(redis, `${prefix}:`) : undefined);
  };
  const assetsOf = (uuid: string) => fake.assets.filter((a) => a.attributes.subject === `vcon://${uuid}`);

  it("without claims, two workers create two assets for one new vCon", async () => {
    const [a, b] = [worker(false), worker(false)];
    await Promise.all([a.resolveAsset(client(), "k", "v-race"), b.resolveAsset(client(), "k", "v-race")]);
    expect(assetsOf("v-race")).toHaveLength(2);
  });

  it("with claims, the second waits for the first and finds its asset", async () => {
    const [a, b] = [worker(true), worker(true)];
    const [ra, rb] = await Promise.all([
      a.resolveAsset(client(), "k", "v-claimed"),
      b.resolveAsset(client(), "k", "v-claimed"),
    ]);
    expect(assetsOf("v-claimed")).toHaveLength(1);
    expect(ra.identity).toBe(rb.identity);
    expect([ra.created, rb.created].sort()).toEqual([false, true]);
  });

  it("records the identity, so the others take it from Redis without asking the backend", async () => {
    const lists = fake.count("assets.list");
    const [a, b, c] = [worker(true), worker(true), worker(true)];
    await Promise.all([a, b, c].map((w) => w.resolveAsset(client(), "k", "v-recorded")));
    expect(assetsOf("v-recorded")).toHaveLength(1);
    expect(fake.count("assets.list") - lists).toBe(1);
    expect(await connections[0]?.get(`${prefix}:asset:k|v-recorded`)).toBe(
      assetsOf("v-recorded")[0]?.identity,
    );
  });

  const claims = (o: ConstructorParameters<typeof RedisDeliveryClaims>[2]) => {
    const redis = new Redis(REDIS_URL);
    connections.push(redis);
    return new RedisDeliveryClaims(redis, `${prefix}:`, { pollMs: 10, ...o });
  };
  const made =
    (identity: string, ms = 0) =>
    async (): Promise<ResolvedAsset> => {
      await new Promise((r) => setTimeout(r, ms));
      return { identity, created: true };
    };

  it("renews a claim while find-or-create runs longer than the claim lasts", async () => {
    const [a, b] = [claims({ claimMs: 150 }), claims({ claimMs: 150, waitMs: 5000 })];
    let second = 0;
    const first = a.resolve("long", made("assets/first", 600));
    await new Promise((r) => setTimeout(r, 50));
    const other = await b.resolve("long", async () => {
      second++;
      return { identity: "assets/second", created: true };
    });
    expect(await first).toEqual({ identity: "assets/first", created: true });
    expect(other).toEqual({ identity: "assets/first", created: false });
    expect(second).toBe(0);
  });

  it("takes over the claim of a holder that died once it expires", async () => {
    await connections[0]?.set(`${prefix}:asset-claim:dead`, "gone", "PX", 300);
    const t0 = Date.now();
    expect(await claims({ claimMs: 300 }).resolve("dead", made("assets/next"))).toEqual({
      identity: "assets/next",
      created: true,
    });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
  });

  it("hands the job back (transient error) rather than waiting on a claim for ever", async () => {
    await connections[0]?.set(`${prefix}:asset-claim:held`, "someone", "PX", 10_000);
    let ran = false;
    const p = claims({ claimMs: 10_000, waitMs: 200 }).resolve("held", async () => {
      ran = true;
      return { identity: "assets/x", created: true };
    });
    await expect(p).rejects.toBeInstanceOf(TransientDeliveryError);
    expect(ran).toBe(false);
  });

  it("does not trust a recorded value that is not an asset identity", async () => {
    await connections[0]?.set(`${prefix}:asset:bad`, "assets/../../tenancies");
    const c = claims({ claimMs: 1000 });
    expect(await c.resolve("bad", made("assets/good"))).toEqual({ identity: "assets/good", created: true });
    expect(await connections[0]?.get(`${prefix}:asset:bad`)).toBe("assets/good");
    expect(await connections[0]?.exists(`${prefix}:asset-claim:bad`)).toBe(0);
  });

  it("frees the claim and records nothing when find-or-create fails", async () => {
    const c = claims({ claimMs: 10_000 });
    await expect(
      c.resolve("fails", async () => {
        throw new TransientDeliveryError("backend down");
      }),
    ).rejects.toBeInstanceOf(TransientDeliveryError);
    expect(await connections[0]?.exists(`${prefix}:asset-claim:fails`, `${prefix}:asset:fails`)).toBe(0);
    expect(await c.resolve("fails", made("assets/later"))).toEqual({
      identity: "assets/later",
      created: true,
    });
  });

  it("claims and releases concurrent vCons in one script call each", async () => {
    const redis = new Redis(REDIS_URL);
    connections.push(redis);
    let evals = 0;
    const evalOnce = redis.eval.bind(redis);
    redis.eval = ((...args: Parameters<Redis["eval"]>) => {
      evals++;
      return evalOnce(...args);
    }) as Redis["eval"];
    const c = new RedisDeliveryClaims(redis, `${prefix}:`, { claimMs: 10_000 });
    const keys = Array.from({ length: 20 }, (_, i) => `many-${i}`);
    const first = await Promise.all(keys.map((k, i) => c.resolve(k, made(`assets/m${i}`))));
    expect(first.every((r) => r.created)).toBe(true);
    // One call claims all 20; their releases come as the creates end, in one group or a few.
    expect(evals).toBeLessThanOrEqual(4);
    const before = evals;
    // Recorded for the others: one call answers them all, and nothing is created again.
    const again = await Promise.all(keys.map((k) => c.resolve(k, made("assets/never"))));
    expect(again.map((r) => r.identity)).toEqual(keys.map((_, i) => `assets/m${i}`));
    expect(evals - before).toBe(1);
    expect(await redis.exists(...keys.map((k) => `${prefix}:asset-claim:${k}`))).toBe(0);
  });
});
