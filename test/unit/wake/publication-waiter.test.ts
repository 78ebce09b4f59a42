import { afterEach, describe, expect, it } from "vitest";
import { PublicationWaiter } from "../../../src/wake/publication-waiter.js";

// A long fallback poll (an hour): anything answered sooner was answered by the wake-up.
const HOUR = 3_600_000;
let waiter: PublicationWaiter;
afterEach(() => waiter.close());

/** A check that finds `value` once `ready` is set, counting its calls. */
function probe<T>(value: T) {
  const p = {
    ready: false,
    calls: 0,
    check: async () => {
      p.calls++;
      return p.ready ? value : undefined;
    },
  };
  return p;
}

describe("PublicationWaiter", () => {
  it("answers at once when the seal is already there, without parking", async () => {
    waiter = new PublicationWaiter(HOUR);
    const p = probe("receipt");
    p.ready = true;
    expect(await waiter.wait(p.check, HOUR)).toBe("receipt");
    expect(p.calls).toBe(1);
  });

  it("a publication re-checks every parked wait in one round", async () => {
    waiter = new PublicationWaiter(HOUR);
    const [a, b] = [probe("a"), probe("b")];
    const waits = [waiter.wait(a.check, HOUR), waiter.wait(b.check, HOUR)];
    await new Promise((r) => setImmediate(r));
    a.ready = true;
    waiter.published();
    await expect(waits[0]).resolves.toBe("a");
    expect(b.calls).toBe(2);
    b.ready = true;
    waiter.published();
    await expect(waits[1]).resolves.toBe("b");
  });

  it("finds the seal by its fallback poll when no wake-up comes", async () => {
    waiter = new PublicationWaiter(20);
    const p = probe(42);
    const w = waiter.wait(p.check, HOUR);
    p.ready = true;
    await expect(w).resolves.toBe(42);
  });

  it("answers undefined at the deadline, and passes a check's error on", async () => {
    waiter = new PublicationWaiter(HOUR);
    expect(await waiter.wait(probe(1).check, 30)).toBeUndefined();
    let n = 0;
    const failing = waiter.wait(async () => {
      if (n++ > 0) throw new Error("entry not found");
      return undefined;
    }, HOUR);
    waiter.published();
    await expect(failing).rejects.toThrow("entry not found");
  });

  it("close answers every waiting request", async () => {
    waiter = new PublicationWaiter(HOUR);
    const w = waiter.wait(probe(1).check, HOUR);
    await new Promise((r) => setImmediate(r));
    waiter.close();
    await expect(w).resolves.toBeUndefined();
  });
});
