import { describe, expect, it } from "vitest";
import { FailureWindow } from "../../../../src/core/api/failure-window.js";

describe("FailureWindow", () => {
  it("refuses a key after `limit` failures until its window ends, with the seconds left", () => {
    const w = new FailureWindow(3, 60_000);
    for (let i = 0; i < 3; i++) {
      expect(w.retryAfter("a", 1000)).toBe(0);
      w.fail("a", 1000);
    }
    expect(w.retryAfter("a", 1000)).toBe(60);
    expect(w.retryAfter("a", 30_500)).toBe(31);
    expect(w.retryAfter("b", 1000)).toBe(0);
    expect(w.retryAfter("a", 61_000)).toBe(0);
  });

  it("starts a new window after the old one ends, and forgets a cleared key", () => {
    const w = new FailureWindow(1, 1000);
    w.fail("a", 0);
    expect(w.retryAfter("a", 10)).toBe(1);
    w.fail("a", 2000);
    expect(w.retryAfter("a", 2500)).toBe(1);
    w.clear("a");
    expect(w.retryAfter("a", 2500)).toBe(0);
  });

  it("keeps at most maxKeys windows", () => {
    const w = new FailureWindow(1, 1000, 10);
    for (let i = 0; i < 25; i++) w.fail(`k${i}`, 0);
    // The map was cleared when full of live windows: early keys are forgotten, late ones kept.
    expect(w.retryAfter("k0", 10)).toBe(0);
    expect(w.retryAfter("k24", 10)).toBe(1);
  });
});
