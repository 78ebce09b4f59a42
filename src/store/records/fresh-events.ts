import type { StoredAssetEvent } from "./asset-events.js";

const DEFAULT_MAX = 20_000;

/**
 * The write path's hand-off (`src/services/write/write-path.ts`): events this process has just stored, handed
 * to the committer of the same process so it hashes them without reading them back (reading
 * rows back with their JSON columns cost as much as writing them). Only a shortcut: the committer still locks the STORED rows it
 * commits and reads from the database any row that is not here (another process wrote it,
 * the process restarted, or it was evicted), so nothing depends on this cache being complete.
 */
export class FreshEvents {
  private readonly rows = new Map<string, StoredAssetEvent>();
  /** Whether a committer of this process takes from it; until one does, rows are not kept. */
  private consumed = false;

  constructor(private readonly max = DEFAULT_MAX) {}

  /**
   * The committer of this process starts taking rows. A process without one (`serve
   * --no-workers`, a one-shot command) never opens it, so it keeps nothing for nobody.
   */
  open(): this {
    this.consumed = true;
    return this;
  }

  /** Remembers rows whose transaction has committed; the oldest go first past the bound. */
  add(rows: readonly StoredAssetEvent[]): void {
    if (!this.consumed) return;
    for (const r of rows) this.rows.set(r.id, r);
    // Only past the bound: an iterator's first step walks the holes that taken rows leave at the
    // front of the map's table, and the committer takes rows all the time.
    if (this.rows.size <= this.max) return;
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
