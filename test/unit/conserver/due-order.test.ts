import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DueHeap, Fifo } from "../../../plugins/conserver/queue/due-order.js";

describe("due order", () => {
  it("pops in the order a stable sort on readyAt gives (ties first in, first out)", () => {
    const h = new DueHeap<{ readyAt: number; n: number }>();
    for (const [n, readyAt] of [5, 1, 5, 3, 1, 9, 0].entries()) h.push({ readyAt, n });
    const out: number[] = [];
    for (let e = h.pop(); e; e = h.pop()) out.push(e.n);
    expect(out).toEqual([6, 1, 4, 3, 0, 2, 5]);
    expect(h.size).toBe(0);
    expect(h.pop()).toBeUndefined();
  });

  it("matches a stable sort under any interleaving of pushes and pops", () => {
    const op = fc.oneof(
      fc.integer({ min: 0, max: 20 }).map((t) => ({ push: t })),
      fc.constant({ pop: true }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const h = new DueHeap<{ readyAt: number; n: number }>();
        let model: Array<{ readyAt: number; n: number }> = [];
        ops.forEach((o, n) => {
          if ("push" in o) {
            h.push({ readyAt: o.push, n });
            model.push({ readyAt: o.push, n });
            model = [...model].sort((a, b) => a.readyAt - b.readyAt);
          } else {
            expect(h.pop()?.n).toBe(model.shift()?.n);
          }
          expect(h.size).toBe(model.length);
          expect(h.peek()?.n).toBe(model[0]?.n);
        });
      }),
    );
  });

  it("a FIFO gives back what it took, in order, across its compactions", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 5000 }), (pushes) => {
        const q = new Fifo<number>();
        const model: number[] = [];
        pushes.forEach((push, i) => {
          if (push || i % 7 === 0) {
            q.push(i);
            model.push(i);
          } else expect(q.shift()).toBe(model.shift());
          expect(q.size).toBe(model.length);
        });
        while (model.length) expect(q.shift()).toBe(model.shift());
        expect(q.shift()).toBeUndefined();
      }),
      { numRuns: 50 },
    );
    // Past the compaction threshold for certain: 3,000 in, 2,000 out, 10 more in, all out.
    const q = new Fifo<number>();
    for (let i = 0; i < 3000; i++) q.push(i);
    for (let i = 0; i < 2000; i++) expect(q.shift()).toBe(i);
    for (let i = 3000; i < 3010; i++) q.push(i);
    expect(q.size).toBe(1010);
    for (let i = 2000; i < 3010; i++) expect(q.shift()).toBe(i);
    expect(q.size).toBe(0);
  });
});
