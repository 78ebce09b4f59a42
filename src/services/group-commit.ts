import type { Db, Queryable } from "../store/db.js";

/** What happened to one item of a group: its stored row, or why it alone was refused. */
export type Outcome<R> = { row: R } | { error: unknown };

export interface GroupCommitOptions<I, R> {
  /** Writes a group inside its transaction; one outcome per item, in order. Throwing fails the group. */
  writeGroup(tx: Queryable, items: I[]): Promise<Array<Outcome<R>>>;
  /** Runs after the group has committed, with the items stored (e.g. waking the committer). */
  afterCommit?(items: I[], rows: R[]): void;
  maxGroup: number;
  /** Group transactions in flight at once, per engine. */
  inFlight: Record<Db["kind"], number>;
}

interface Waiting<I, R> {
  item: I;
  resolve(row: R): void;
  reject(err: unknown): void;
}

/**
 * Application-level group commit: items submitted concurrently are written in one
 * transaction, each caller answered after that commit. A request pays a transaction's fixed
 * cost (its WAL flush, and any lock it holds until then) once per group instead of once per item.
 */
export class GroupCommit<I, R> {
  private queue: Array<Waiting<I, R>> = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly maxInFlight: number;

  constructor(
    private readonly db: Db,
    private readonly opts: GroupCommitOptions<I, R>,
  ) {
    this.maxInFlight = opts.inFlight[db.kind];
  }

  /** Resolves with the stored row once its group has committed. */
  write(item: I): Promise<R> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  // Waits one turn of the event loop first, so requests parsed in the same tick join the group.
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
        const group = this.queue.splice(0, this.opts.maxGroup);
        this.inFlight++;
        void this.flush(group).finally(() => {
          this.inFlight--;
          if (this.queue.length > 0) this.schedule();
        });
      }
    });
  }

  private async flush(group: Array<Waiting<I, R>>): Promise<void> {
    try {
      const items = group.map((w) => w.item);
      const outcomes = await this.db.transaction((tx) => this.opts.writeGroup(tx, items));
      const stored: I[] = [];
      const rows: R[] = [];
      for (const [i, w] of group.entries()) {
        const o = outcomes[i] as Outcome<R>;
        if ("row" in o) {
          stored.push(w.item);
          rows.push(o.row);
          w.resolve(o.row);
        } else w.reject(o.error);
      }
      this.opts.afterCommit?.(stored, rows);
    } catch (err) {
      if (group.length === 1) {
        (group[0] as Waiting<I, R>).reject(err);
        return;
      }
      // One item the database refuses (something validation let through) must not fail the
      // requests it happened to share a group with: each is tried again on its own.
      for (const w of group) await this.flush([w]);
    }
  }
}
