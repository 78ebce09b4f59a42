import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createWakeSignal } from "../../../src/wake/create-wake-signal.js";
import { RedisWakeSignal } from "../../../src/wake/redis-wake-signal.js";
import { REDIS_URL, redisUp, uniqueName } from "../conserver/redis-env.js";

const up = await redisUp();

describe.skipIf(!up)("Redis wake signal", () => {
  const prefix = uniqueName("wake");
  const opened: RedisWakeSignal[] = [];

  afterAll(async () => {
    for (const s of opened) await s.close();
  });

  it("wakes other processes' waiters through pub/sub", async () => {
    const a = createWakeSignal({ redisUrl: REDIS_URL, prefix }) as RedisWakeSignal;
    const b = new RedisWakeSignal({ redisUrl: REDIS_URL, prefix });
    opened.push(a, b);
    await a.listening();
    await b.listening();
    const woken = a.wait(3000, "commit:t1");
    await b.notify("commit:t1");
    expect(await woken).toBe(true);
    expect(await a.wait(50, "nothing")).toBe(false);
  });

  it("opens only the connection a process uses: a publisher never subscribes", async () => {
    const own = `${prefix}-roles`;
    const publisher = new RedisWakeSignal({ redisUrl: REDIS_URL, prefix: own });
    opened.push(publisher);
    await publisher.notify("commit:t1");
    const admin = new Redis(REDIS_URL);
    try {
      const names = ((await admin.client("LIST")) as string)
        .split("\n")
        .map((line) => /(?:^| )name=(\S*)/.exec(line)?.[1])
        .filter((n) => n?.startsWith(own));
      expect(names).toEqual([`${own}:wake:pub`]);
    } finally {
      await admin.quit();
    }
  });
});
