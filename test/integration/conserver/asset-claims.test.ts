import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisAssetClaims } from "../../../plugins/conserver/delivery/asset-claims.js";
import { AssetResolver } from "../../../plugins/conserver/delivery/assets.js";
import { ArchivistClient } from "../../../plugins/conserver/delivery/client.js";
import { DEFAULT_RETRY_POLICY } from "../../../plugins/conserver/delivery/retry-policy.js";
import { TokenSource } from "../../../plugins/conserver/delivery/token-source.js";
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
    return new AssetResolver(claims ? new RedisAssetClaims(redis, `${prefix}:`) : undefined);
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
});
