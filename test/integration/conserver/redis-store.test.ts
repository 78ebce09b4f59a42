import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisVconStore } from "../../../plugins/conserver/store/redis-store.js";
import { fixturePath } from "../../helpers/fixtures.js";
import { deleteKeys, REDIS_URL, redisUp, uniqueName } from "./redis-env.js";

const up = await redisUp();

describe.skipIf(!up)("vCons in Redis", () => {
  const prefix = uniqueName("store");
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it("reads plain string keys (no RedisJSON here, or a string key) byte for byte", async () => {
    const bytes = readFileSync(fixturePath("vcon/vcon-js-legacy-0.0.1-text-chat.vcon.json"));
    const store = new RedisVconStore(redis, { keyPrefix: `${prefix}:vcon:` });
    await redis.set(store.key("v1"), bytes);
    const doc = await store.get("v1");
    expect(Buffer.from(doc?.bytes ?? []).equals(bytes)).toBe(true);
    expect(await store.get("absent")).toBeNull();
  });

  it("writes back keeping the key's expiry", async () => {
    const store = new RedisVconStore(redis, { keyPrefix: `${prefix}:vcon:` });
    await redis.set(store.key("v2"), '{"uuid":"v2","parties":[]}', "EX", 3600);
    await store.put("v2", '{"uuid":"v2","parties":[],"analysis":[]}');
    expect((await store.get("v2"))?.value.analysis).toEqual([]);
    expect(await redis.ttl(store.key("v2"))).toBeGreaterThan(3000);
  });
});
