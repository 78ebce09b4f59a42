import { Coalescer, type Outcome } from "../../batching/coalescer.js";
import type { Db, Queryable } from "../../store/drivers/db.js";

export type { Outcome };

export interface GroupCommitOptions<I, R, P> {
  /**
   * What the group needs from outside the database's transaction (keys, values derived from them),
   * read before it opens: inside it, only the transaction may be used (store/drivers/transaction-scope.ts).
   */
  prepare?(items: I[]): Promise<P>;
  /**
   * Writes a group without a transaction of its own, when it can (its own statements are then
   * each their own transaction); undefined when it does not take the group, which `writeGroup`
   * then writes. One outcome per item, in order.
   */
  writeOutside?(db: Db, items: I[], prepared: P): Promise<Array<Outcome<R>> | undefined>;
  /** Writes a group inside its transaction; one outcome per item, in order. Throwing fails the group. */
  writeGroup(tx: Queryable, items: I[], prepared: P): Promise<Array<Outcome<R>>>;
  /** Runs after the group has committed, with the items stored (e.g. waking the committer). */
  afterCommit?(items: I[], rows: R[]): void;
  maxGroup: number;
  /** Group transactions in flight at once, per engine. */
  inFlight: Record<Db["kind"], number>;
}

/**
 * Application-level group commit: items submitted concurrently are written in one
 * transaction, each caller answered after that commit. A request pays a transaction's fixed
 * cost (its WAL flush, and any lock it holds until then) once per group instead of once per item.
 */
export class GroupCommit<I, R, P = undefined> {
  private readonly groups: Coalescer<I, R>;

  constructor(
    private readonly db: Db,
    private readonly opts: GroupCommitOptions<I, R, P>,
  ) {
    this.groups = new Coalescer({
      runGroup: (items) => this.commit(items),
      maxGroup: opts.maxGroup,
      inFlight: opts.inFlight[db.kind],
    });
  }

  /** Resolves with the stored row once its group has committed. */
  write(item: I): Promise<R> {
    return this.groups.submit(item);
  }

  /**
   * The group commit's other mode: `items` written in a transaction of their own with
   * `alongside`, for a write that must commit with other changes or not at all (an erasure's
   * records and the deletion of the values they record, docs/vcon-lifecycle.md §4). Prepared,
   * written and followed up (`afterCommit`) as a group; but all or nothing: an item refused, or
   * `alongside` throwing, rolls the whole back, and nothing is tried again alone.
   */
  async writeAlone<T>(
    items: I[],
    alongside: (tx: Queryable, rows: R[]) => Promise<T>,
  ): Promise<{ rows: R[]; result: T }> {
    const prepared = (await this.opts.prepare?.(items)) as P;
    const done = await this.db.transaction(async (tx) => {
      const rows = (await this.opts.writeGroup(tx, items, prepared)).map(rowOf);
      return { rows, result: await alongside(tx, rows) };
    });
    this.opts.afterCommit?.(items, done.rows);
    return done;
  }

  private async commit(items: I[]): Promise<Array<Outcome<R>>> {
    let outcomes: Array<Outcome<R>>;
    try {
      const prepared = (await this.opts.prepare?.(items)) as P;
      outcomes =
        (await this.opts.writeOutside?.(this.db, items, prepared)) ??
        (await this.db.transaction((tx) => this.opts.writeGroup(tx, items, prepared)));
    } catch (err) {
      if (items.length === 1) return [{ error: err }];
      // One item the database refuses (something validation let through) must not fail the
      // requests it happened to share a group with: each is tried again on its own.
      const alone: Array<Outcome<R>> = [];
      for (const item of items) alone.push(...(await this.commit([item])));
      return alone;
    }
    // Outside the retry above: the group has committed, and writing it again would store its
    // records twice.
    const stored: I[] = [];
    const rows: R[] = [];
    for (const [i, o] of outcomes.entries())
      if ("row" in o) {
        stored.push(items[i] as I);
        rows.push(o.row);
      }
    this.opts.afterCommit?.(stored, rows);
    return outcomes;
  }
}

/** The row of an item written, or its refusal thrown (rolling back a transaction it is in). */
function rowOf<R>(o: Outcome<R>): R {
  if ("error" in o) throw o.error;
  return o.row;
}
