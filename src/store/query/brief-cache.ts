import type { Queryable } from "../drivers/db.js";
import { refuseInsideTransaction } from "../drivers/transaction-scope.js";

const MAX_CACHED = 10_000;

/** Answers kept for a moment per database and key; `forget` drops them all at once. */
export interface BriefCache<T> {
  get(db: Queryable, key: string): Promise<T>;
  /**
   * The answer `get` would give now, when it is loaded and still fresh; else undefined. A caller
   * on the hot path (every ingested event asks for its tenancy's erasure policy) goes on without
   * an await, and so without a turn of the microtask queue, when the answer is at hand.
   */
  peek(db: Queryable, key: string): T | undefined;
  /** Called after every write that may change an answer (in this process: seen at once). */
  forget(): void;
}

/**
 * For reads that every request makes and only rare writes change (who shares with a tenancy,
 * its access policies): answers are kept `ttlMs`, so a change made in this process is seen at
 * once (`forget`) and one made in another process within `ttlMs`, the window principals have
 * too (services/identity/auth.ts). Callers share the answers and must not modify them; a failed load is
 * not kept.
 */
export function briefCache<T>(
  ttlMs: number,
  load: (db: Queryable, key: string) => Promise<T>,
): BriefCache<T> {
  let generation = 0;
  type Entry = { at: number; generation: number; value: Promise<T>; loaded: boolean; answer: T | undefined };
  const byDb = new WeakMap<Queryable, Map<string, Entry>>();
  return {
    // No refusal inside a transaction here: an answer already loaded waits for no connection.
    peek(db, key) {
      const hit = byDb.get(db)?.get(key);
      return hit?.loaded && hit.generation === generation && Date.now() - hit.at < ttlMs
        ? hit.answer
        : undefined;
    },
    get(db, key) {
      // A hit may be a load still running through the handle, which the transaction would wait for.
      refuseInsideTransaction(db, "a cached answer");
      let entries = byDb.get(db);
      if (!entries) {
        entries = new Map();
        byDb.set(db, entries);
      }
      const now = Date.now();
      const hit = entries.get(key);
      if (hit && hit.generation === generation && now - hit.at < ttlMs) return hit.value;
      if (entries.size >= MAX_CACHED) entries.clear();
      const entry: Entry = { at: now, generation, value: load(db, key), loaded: false, answer: undefined };
      entries.set(key, entry);
      const kept = entries;
      entry.value.then(
        (answer) => {
          entry.answer = answer;
          entry.loaded = true;
        },
        () => {
          if (kept.get(key) === entry) kept.delete(key);
        },
      );
      return entry.value;
    },
    forget() {
      generation++;
    },
  };
}
