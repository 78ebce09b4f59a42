import { describe, expect, it } from "vitest";
import { Coalescer, settle } from "../../../src/batching/coalescer.js";

describe("Coalescer", () => {
  it("sends a lone item at once and gathers the items that arrive while groups run", async () => {
    const groups: number[][] = [];
    let release: () => void = () => undefined;
    const c = new Coalescer<number, number>({
      runGroup: async (items) => {
        groups.push(items);
        if (groups.length === 1) await new Promise<void>((r) => (release = r));
        return items.map((i) => ({ row: i * 10 }));
      },
      maxGroup: 3,
      inFlight: 1,
    });
    const first = c.submit(1);
    await new Promise((r) => setImmediate(r));
    expect(groups).toEqual([[1]]);
    // While the first group runs, five more gather: groups of at most three follow it.
    const rest = [2, 3, 4, 5, 6].map((i) => c.submit(i));
    release();
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40, 50, 60]);
    expect(groups).toEqual([[1], [2, 3, 4], [5, 6]]);
  });

  it("answers each item with its own outcome, and fails every item of a group that throws", async () => {
    const c = new Coalescer<string, string>({
      runGroup: async (items) => {
        if (items.includes("boom")) throw new Error("the request failed");
        return items.map((i) => (i === "bad" ? { error: new Error("bad item") } : { row: i }));
      },
      maxGroup: 10,
      inFlight: 1,
    });
    const one = await Promise.allSettled(["a", "bad", "b"].map((i) => c.submit(i)));
    expect(one.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([
      "a",
      "bad item",
      "b",
    ]);
    const two = await Promise.allSettled(["c", "boom"].map((i) => c.submit(i)));
    expect(two.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  });

  it("rejects an item its group gave no outcome for", async () => {
    const c = new Coalescer<string, string>({ runGroup: async () => [], maxGroup: 10, inFlight: 1 });
    await expect(c.submit("x")).rejects.toThrow("no outcome");
  });
});

describe("settle", () => {
  it("makes a result, a rejection and a throw before any promise each an item's outcome", async () => {
    const boom = new Error("boom");
    expect(await settle(async () => 7)).toEqual({ row: 7 });
    expect(await settle(() => Promise.reject(boom))).toEqual({ error: boom });
    expect(
      await settle(() => {
        throw boom;
      }),
    ).toEqual({ error: boom });
  });
});
