import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../../../src/services/write/group-commit.js";
import { fakeDb } from "./fake-db.js";

describe("GroupCommit", () => {
  it("writes concurrent items as one group and answers each after the commit", async () => {
    const groups: string[][] = [];
    const committed: string[] = [];
    const g = new GroupCommit<string, string>(fakeDb("postgres"), {
      writeGroup: async (_tx, items) => {
        groups.push(items);
        return items.map((i) => ({ row: i.toUpperCase() }));
      },
      afterCommit: (items) => committed.push(...items),
      maxGroup: 100,
      inFlight: { postgres: 1, pglite: 1 },
    });
    expect(await Promise.all(["a", "b", "c"].map((i) => g.write(i)))).toEqual(["A", "B", "C"]);
    expect(groups).toEqual([["a", "b", "c"]]);
    expect(committed).toEqual(["a", "b", "c"]);
  });

  it("refuses one item alone, and retries a failed group item by item so others still commit", async () => {
    const groups: string[][] = [];
    const g = new GroupCommit<string, string>(fakeDb("postgres"), {
      writeGroup: async (_tx, items) => {
        groups.push(items);
        if (items.includes("poison")) throw new Error("the database refused poison");
        return items.map((i) => (i === "refused" ? { error: new Error("over quota") } : { row: i }));
      },
      maxGroup: 100,
      inFlight: { postgres: 1, pglite: 1 },
    });
    const results = await Promise.allSettled(["a", "poison", "refused", "b"].map((i) => g.write(i)));
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([
      "a",
      "the database refused poison",
      "over quota",
      "b",
    ]);
    expect(groups).toEqual([["a", "poison", "refused", "b"], ["a"], ["poison"], ["refused"], ["b"]]);
  });

  it("never writes a committed group again when its after-commit step throws", async () => {
    const groups: string[][] = [];
    const g = new GroupCommit<string, string>(fakeDb("postgres"), {
      writeGroup: async (_tx, items) => {
        groups.push(items);
        return items.map((i) => ({ row: i }));
      },
      afterCommit: () => {
        throw new Error("wake-up failed");
      },
      maxGroup: 100,
      inFlight: { postgres: 1, pglite: 1 },
    });
    await Promise.allSettled(["a", "b"].map((i) => g.write(i)));
    expect(groups).toEqual([["a", "b"]]);
  });
});
