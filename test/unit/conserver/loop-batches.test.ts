import { describe, expect, it } from "vitest";
import { loopBatches } from "../../../plugins/conserver/runtime/redis-lists.js";

describe("link runtime loops", () => {
  it("splits the concurrency into pops of at most the batch, never holding more in all", () => {
    expect(loopBatches(1)).toEqual([1]);
    expect(loopBatches(16)).toEqual([8, 8]);
    expect(loopBatches(8)).toEqual([8]);
    expect(loopBatches(64)).toEqual([32, 32]);
    expect(loopBatches(40)).toEqual([20, 20]);
    expect(loopBatches(100)).toEqual([32, 32, 32, 4]);
    expect(loopBatches(16, 4)).toEqual([4, 4, 4, 4]);
    expect(loopBatches(6, 4)).toEqual([4, 2]);
    expect(loopBatches(3, 8)).toEqual([3]);
    expect(loopBatches(0)).toEqual([1]);
    expect(loopBatches(5, 0)).toEqual([1, 1, 1, 1, 1]);
  });
});
