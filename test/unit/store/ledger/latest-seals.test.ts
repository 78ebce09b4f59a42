import { describe, expect, it } from "vitest";
import { LatestSeals } from "../../../../src/store/ledger/latest-seals.js";
import type { SealRow } from "../../../../src/store/ledger/seals.js";

const T = "00000000-0000-4000-8000-000000000001";
const seal = (mmr_size: number) => ({ tenant_id: T, mmr_size }) as SealRow;

/** A read the test settles by hand, counting how many were started. */
function manualReads() {
  const pending: Array<(s: SealRow | undefined) => void> = [];
  const failers: Array<(e: Error) => void> = [];
  let started = 0;
  return {
    read: () =>
      new Promise<SealRow | undefined>((resolve, reject) => {
        started++;
        pending.push(resolve);
        failers.push(reject);
      }),
    settle: (s: SealRow | undefined) => (pending.shift() as (s: SealRow | undefined) => void)(s),
    fail: (e: Error) => {
      pending.shift();
      (failers.shift() as (e: Error) => void)(e);
    },
    get started() {
      return started;
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("LatestSeals: the latest seal as receipts take it", () => {
  it("reads once for every request that finds it stale together, then serves the kept seal while fresh", async () => {
    let now = 1_000;
    const seals = new LatestSeals(200, () => now);
    const r = manualReads();
    const asked = Array.from({ length: 64 }, (_, i) => seals.covering(T, i, r.read));
    await tick();
    expect(r.started).toBe(1);
    r.settle(seal(100));
    expect((await Promise.all(asked)).every((s) => s?.mmr_size === 100)).toBe(true);
    now += 199;
    expect((await seals.covering(T, 5, r.read))?.mmr_size).toBe(100);
    expect(r.started).toBe(1);
    // Stale: read again, once.
    now += 1;
    const again = [seals.covering(T, 5, r.read), seals.covering(T, 6, r.read)];
    await tick();
    expect(r.started).toBe(2);
    r.settle(seal(120));
    expect((await Promise.all(again)).map((s) => s?.mmr_size)).toEqual([120, 120]);
  });

  it("reads again for a record the kept seal does not cover, and says none only after a read started after the request", async () => {
    let now = 0;
    const seals = new LatestSeals(200, () => now);
    const r = manualReads();
    // A read in flight, started before the second request: its seal does not cover index 150.
    const first = seals.covering(T, 10, r.read);
    const late = seals.covering(T, 150, r.read);
    await tick();
    expect(r.started).toBe(1);
    r.settle(seal(100));
    expect((await first)?.mmr_size).toBe(100);
    await tick();
    // The late request does not take that read's answer for "not sealed": it reads once more.
    expect(r.started).toBe(2);
    r.settle(seal(100));
    expect(await late).toBeUndefined();
    // The kept seal covers index 10 but not 150: 150 reads afresh, and finds the new seal.
    now += 50;
    const sealed = seals.covering(T, 150, r.read);
    await tick();
    expect(r.started).toBe(3);
    r.settle(seal(200));
    expect((await sealed)?.mmr_size).toBe(200);
  });

  it("a failed read fails those waiting for it, and the next request reads again", async () => {
    const seals = new LatestSeals(200, () => 0);
    const r = manualReads();
    const a = seals.covering(T, 1, r.read);
    const b = seals.covering(T, 2, r.read);
    await tick();
    r.fail(new Error("connection lost"));
    await expect(a).rejects.toThrow("connection lost");
    await expect(b).rejects.toThrow("connection lost");
    const c = seals.covering(T, 1, r.read);
    await tick();
    expect(r.started).toBe(2);
    r.settle(seal(10));
    expect((await c)?.mmr_size).toBe(10);
  });

  it("keeps each log's seal apart, and forgets them all on clear", async () => {
    const seals = new LatestSeals(200, () => 0);
    const U = "00000000-0000-4000-8000-000000000002";
    const reads: string[] = [];
    const read = async (t: string) => {
      reads.push(t);
      return { tenant_id: t, mmr_size: t === T ? 10 : 20 } as SealRow;
    };
    expect((await seals.covering(T, 1, read))?.mmr_size).toBe(10);
    expect((await seals.covering(U, 1, read))?.mmr_size).toBe(20);
    expect((await seals.covering(T, 1, read))?.mmr_size).toBe(10);
    expect(reads).toEqual([T, U]);
    seals.clear();
    await seals.covering(T, 1, read);
    expect(reads).toEqual([T, U, T]);
  });
});
