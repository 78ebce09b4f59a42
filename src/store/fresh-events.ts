import type { StoredAssetEvent } from "./asset-events.js";
import type { Db } from "./db.js";

const DEFAULT_MAX = 20_000;

/**
 * Events this process has just stored, handed to the committer of the same process so it
 * hashes them without reading them back (reading rows back with their JSON columns cost
 * as much as writing them). Only a shortcut: the committer still locks the STORED rows it
 * commits and reads from the database any row that is not here (another process wrote it,
 * the process restarted, or it was evicted), so nothing depends on this cache being complete.
 */
export class FreshEvents {
  private readonly rows = new Map<string, StoredAssetEvent>();

  constructor(private readonly max = DEFAULT_MAX) {}

  /** Remembers rows whose transaction has committed; the oldest go first past the bound. */
  add(rows: readonly StoredAssetEvent[]): void {
    for (const r of rows) this.rows.set(r.id, r);
    for (const id of this.rows.keys()) {
      if (this.rows.size <= this.max) break;
      this.rows.delete(id);
    }
  }

  /** The row with this id, removed from the cache (each row is committed once). */
  take(id: string): StoredAssetEvent | undefined {
    const row = this.rows.get(id);
    if (row) this.rows.delete(id);
    return row;
  }

  get size(): number {
    return this.rows.size;
  }
}

const byDb = new WeakMap<Db, FreshEvents>();

/** Turns the hand-off on for this database (the committer does, when it runs in this process). */
export function enableFreshEvents(db: Db): FreshEvents {
  let f = byDb.get(db);
  if (!f) {
    f = new FreshEvents();
    byDb.set(db, f);
  }
  return f;
}

/** The hand-off of this database, when a committer in this process consumes it. */
export function freshEventsOf(db: Db): FreshEvents | undefined {
  return byDb.get(db);
}
