import { afterEach, describe, expect, it, vi } from "vitest";
import type { Queryable } from "../../../../src/store/drivers/db.js";
import { briefCache } from "../../../../src/store/query/brief-cache.js";

const db = (): Queryable => ({ query: async () => [] });

describe("briefCache", () => {
  afterEach(() => vi.useRealTimers());

  it("keeps an answer per database and key for its time, and forgets all on a write", async () => {
    vi.useFakeTimers();
    let loads = 0;
    const cache = briefCache(1000, async (_db, key) => `${key}#${++loads}`);
    const one = db();
    const two = db();
    expect(await cache.get(one, "t")).toBe("t#1");
    expect(await cache.get(one, "t")).toBe("t#1");
    expect(await cache.get(two, "t")).toBe("t#2");
    expect(await cache.get(one, "u")).toBe("u#3");
    vi.advanceTimersByTime(999);
    expect(await cache.get(one, "t")).toBe("t#1");
    vi.advanceTimersByTime(1);
    expect(await cache.get(one, "t")).toBe("t#4");
    cache.forget();
    expect(await cache.get(one, "t")).toBe("t#5");
    expect(await cache.get(two, "t")).toBe("t#6");
  });

  it("does not keep a failed load", async () => {
    let fail = true;
    const cache = briefCache(60_000, async () => {
      if (fail) throw new Error("database down");
      return "ok";
    });
    const d = db();
    await expect(cache.get(d, "t")).rejects.toThrow("database down");
    fail = false;
    expect(await cache.get(d, "t")).toBe("ok");
  });

  it("peeks only at an answer loaded, fresh and of the current generation", async () => {
    vi.useFakeTimers();
    let loads = 0;
    let release: () => void = () => undefined;
    const cache = briefCache(1000, async (_db, key) => {
      await new Promise<void>((r) => {
        release = r;
      });
      return `${key}#${++loads}`;
    });
    const d = db();
    expect(cache.peek(d, "t")).toBeUndefined();
    const loading = cache.get(d, "t");
    expect(cache.peek(d, "t")).toBeUndefined(); // still loading
    release();
    expect(await loading).toBe("t#1");
    expect(cache.peek(d, "t")).toBe("t#1");
    expect(cache.peek(db(), "t")).toBeUndefined(); // another database
    vi.advanceTimersByTime(1000);
    expect(cache.peek(d, "t")).toBeUndefined(); // stale
    const again = cache.get(d, "t");
    release();
    expect(await again).toBe("t#2");
    expect(cache.peek(d, "t")).toBe("t#2");
    cache.forget();
    expect(cache.peek(d, "t")).toBeUndefined(); // forgotten by a write
  });

  it("peeks at nothing after a failed load", async () => {
    const cache = briefCache(60_000, async () => {
      throw new Error("database down");
    });
    const d = db();
    await expect(cache.get(d, "t")).rejects.toThrow("database down");
    expect(cache.peek(d, "t")).toBeUndefined();
  });
});
