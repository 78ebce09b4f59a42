import type { Redis } from "ioredis";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { RedisVconStore } from "../../../plugins/conserver/store/redis-store.js";

// Issue 74: reads in flight together, on a Redis without RedisJSON, each found the module missing
// and each said so.
describe("RedisVconStore on a Redis without RedisJSON", () => {
  it("says so once, however many reads find it out together", async () => {
    const vcon = JSON.stringify({ vcon: "0.0.1", uuid: "0194b168-bac0-75e6-bbc4-a47cc45bdbf5", parties: [] });
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((r) => {
      answer = r;
    });
    const redis = {
      // Every JSON command is refused, once all the reads have asked.
      call: async () => {
        await answered;
        throw new Error("ERR unknown command 'JSON.GET', with args beginning with: 'vcon:x' '.'");
      },
      getBuffer: async () => Buffer.from(vcon),
    } as unknown as Redis;
    const logged: string[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => void logged.push(line) });
    const store = new RedisVconStore(redis, { log });
    const reads = [1, 2, 3].map(() => store.get("x"));
    answer();
    for (const doc of await Promise.all(reads)) expect(doc?.value.parties).toEqual([]);
    await store.get("x");
    expect(logged.filter((l) => l.includes("RedisJSON not loaded"))).toHaveLength(1);
  });
});
