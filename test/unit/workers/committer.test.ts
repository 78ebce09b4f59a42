import pino from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Db } from "../../../src/store/drivers/db.js";
import { FreshEvents } from "../../../src/store/records/fresh-events.js";
import type { CommitResult } from "../../../src/workers/commit-batch.js";
import { Committer } from "../../../src/workers/committer.js";

const T = "00000000-0000-4000-8000-000000000001";

/**
 * A database whose every commit batch answers what `next` says, 3 ms later (the batch itself is not run):
 * the committer's scheduling is what is under test, counted in batches tried.
 */
function scriptedDb(next: () => CommitResult): { db: Db; tries: number[] } {
  const tries: number[] = [];
  const db: Db = {
    kind: "postgres",
    query: async <R>() => [] as R[],
    // A batch takes 3 ms, as a round trip or three do.
    transaction: async <R>() => {
      tries.push(Date.now());
      const result = next();
      await new Promise((r) => setTimeout(r, 3));
      return result as R;
    },
    ping: async () => undefined,
    close: async () => undefined,
  };
  return { db, tries };
}

describe("the committer's timer", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("tries a log whose lock is held again with the wake-ups, one batch a gathering window, not one more per refusal", async () => {
    let held = true;
    const { db, tries } = scriptedDb(() =>
      held ? { count: 0, assets: [], busy: true } : { count: 5, assets: [] },
    );
    const committed: string[] = [];
    const c = new Committer(db, pino({ level: "silent" }), 250, new FreshEvents(), (t) => committed.push(t));
    // Groups stored every 5 ms (each wakes the committer) while a seal holds the lock for 100 ms.
    for (let at = 0; at < 100; at += 5) {
      c.wake(T);
      await vi.advanceTimersByTimeAsync(5);
    }
    // One try a 25 ms window: at 25, 50, 75 and 100 ms. Before, a refused log was tried again
    // at once by the drain under way, woken by the groups stored meanwhile (28, 31, 53, 56, …),
    // and by a timer of its own besides.
    expect(tries).toEqual([25, 50, 75, 100]);
    held = false;
    // The try at 100 was refused at 103: the next is a window after it.
    await vi.advanceTimersByTimeAsync(28);
    expect(tries).toEqual([25, 50, 75, 100, 128]);
    await vi.advanceTimersByTimeAsync(100);
    expect(committed).toEqual([T]);
    expect(tries).toHaveLength(5);
  });

  it("tries a refused log again without a wake-up", async () => {
    let held = true;
    const { db, tries } = scriptedDb(() =>
      held ? { count: 0, assets: [], busy: true } : { count: 1, assets: [] },
    );
    const c = new Committer(db, pino({ level: "silent" }), 250, new FreshEvents());
    c.wake(T);
    await vi.advanceTimersByTimeAsync(25);
    expect(tries).toEqual([25]);
    held = false;
    // Refused at 28: tried again a window later.
    await vi.advanceTimersByTimeAsync(28);
    expect(tries).toEqual([25, 53]);
    await vi.advanceTimersByTimeAsync(100);
    expect(tries).toHaveLength(2);
  });
});

describe("the committer beside this process's signing", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A signing of the log that ends when `end` is called. */
  function signingUntilEnded(): { under: () => Promise<unknown> | undefined; end: () => void } {
    let end: () => void = () => undefined;
    let under: Promise<unknown> | undefined = new Promise<void>((r) => {
      end = () => {
        under = undefined;
        r();
      };
    });
    return { under: () => under, end: () => end() };
  }

  /** A committer of this process, whose signing of the log is `signing`. */
  const committerBeside = (
    db: Db,
    signing: { under: () => Promise<unknown> | undefined },
    onCommitted?: () => void,
  ) =>
    new Committer(
      db,
      pino({ level: "silent" }),
      250,
      new FreshEvents(),
      onCommitted,
      undefined,
      undefined,
      signing.under,
    );

  it("does not try a log while this process signs it, and commits what waited as soon as the signing ends", async () => {
    const { db, tries } = scriptedDb(() => ({ count: 5, assets: [] }));
    const committed: number[] = [];
    const signing = signingUntilEnded();
    const c = committerBeside(db, signing, () => committed.push(Date.now()));
    // Groups stored every 5 ms while a seal signs for 100 ms: no try at all, where each window
    // tried the log and was refused (the test above).
    for (let at = 0; at < 100; at += 5) {
      c.wake(T);
      await vi.advanceTimersByTimeAsync(5);
    }
    expect(tries).toEqual([]);
    // The signing ends at 100: what waited is committed at once, not a gathering window later.
    signing.end();
    await vi.advanceTimersByTimeAsync(0);
    expect(tries).toEqual([100]);
    await vi.advanceTimersByTimeAsync(3);
    expect(committed).toEqual([103]);
    // And nothing else is due.
    await vi.advanceTimersByTimeAsync(200);
    expect(tries).toHaveLength(1);
  });

  it("a flush waits for the signing, then commits", async () => {
    const { db, tries } = scriptedDb(() => ({ count: 2, assets: [] }));
    db.query = async <R>() => [{ tenant_id: T }] as R[];
    const signing = signingUntilEnded();
    const c = committerBeside(db, signing);
    let flushed = false;
    const flush = c.flushAll().then(() => {
      flushed = true;
    });
    await vi.advanceTimersByTimeAsync(50);
    expect([tries, flushed]).toEqual([[], false]);
    signing.end();
    await vi.advanceTimersByTimeAsync(3);
    await flush;
    expect(tries).toEqual([50]);
  });
});
