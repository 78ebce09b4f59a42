import { Redis } from "ioredis";

/** Deletes the demo's queue keys (`<prefix>:*`): a demo run leaves nothing behind in a shared Redis. */
export async function deleteRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  redis.on("error", () => undefined);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}
