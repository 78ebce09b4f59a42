import { describe, expect, it } from "vitest";
import { Generations } from "../../../plugins/conserver/delivery/generations.js";

describe("Generations (the delivery worker's bounded asset cache)", () => {
  it("keeps the newest max to 2 × max entries and forgets older ones whole", () => {
    const g = new Generations<number, string>(3);
    for (let i = 0; i < 3; i++) g.set(i, `v${i}`);
    expect([0, 1, 2].map((i) => g.get(i))).toEqual(["v0", "v1", "v2"]);
    // The fourth starts a new generation; the first three are still read from the previous one.
    g.set(3, "v3");
    expect([0, 1, 2, 3].map((i) => g.get(i))).toEqual(["v0", "v1", "v2", "v3"]);
    g.set(4, "v4");
    g.set(5, "v5");
    // The seventh drops the first generation.
    g.set(6, "v6");
    expect(g.get(0)).toBeUndefined();
    expect(g.get(2)).toBeUndefined();
    expect([3, 4, 5, 6].map((i) => g.get(i))).toEqual(["v3", "v4", "v5", "v6"]);
  });

  it("answers the newest value of a key set again", () => {
    const g = new Generations<string, number>(2);
    g.set("a", 1);
    g.set("b", 2);
    g.set("a", 3);
    expect(g.get("a")).toBe(3);
    g.set("c", 4);
    expect(g.get("a")).toBe(3);
  });

  it("holds a bound of one", () => {
    const g = new Generations<string, number>(1);
    g.set("a", 1);
    g.set("b", 2);
    g.set("c", 3);
    expect(g.get("a")).toBeUndefined();
    expect(g.get("b")).toBe(2);
    expect(g.get("c")).toBe(3);
  });
});
