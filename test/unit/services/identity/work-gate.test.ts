import { describe, expect, it } from "vitest";
import { WorkGate } from "../../../../src/services/identity/work-gate.js";

/** A piece of work that finishes when told, noting how many ran at once. */
function tracker() {
  let running = 0;
  let most = 0;
  const order: number[] = [];
  const release: Array<() => void> = [];
  const work = (i: number) => async () => {
    running++;
    most = Math.max(most, running);
    order.push(i);
    await new Promise<void>((r) => release.push(r));
    running--;
    return i;
  };
  return { work, release, order, most: () => most };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("WorkGate", () => {
  it("runs at most its concurrency at once, the waiting in arrival order", async () => {
    const gate = new WorkGate(2, 10);
    const t = tracker();
    const results = [0, 1, 2, 3, 4].map((i) => gate.run(t.work(i)));
    await tick();
    expect(t.order).toEqual([0, 1]);
    while (t.release.length) {
      t.release.shift()?.();
      await tick();
      await tick();
    }
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3, 4]);
    expect(t.order).toEqual([0, 1, 2, 3, 4]);
    expect(t.most()).toBe(2);
  });

  it("refuses, without running it, work past its waiting bound, and takes work again once there is room", async () => {
    const gate = new WorkGate(1, 1);
    const t = tracker();
    const first = gate.run(t.work(0));
    const second = gate.run(t.work(1));
    let ran = false;
    expect(
      await gate.run(async () => {
        ran = true;
      }),
    ).toBeUndefined();
    expect(ran).toBe(false);
    t.release.shift()?.();
    expect(await first).toBe(0);
    await tick();
    t.release.shift()?.();
    expect(await second).toBe(1);
    expect(await gate.run(async () => "again")).toBe("again");
  });

  it("frees the slot when the work fails", async () => {
    const gate = new WorkGate(1, 0);
    await expect(gate.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await gate.run(async () => 7)).toBe(7);
  });
});
