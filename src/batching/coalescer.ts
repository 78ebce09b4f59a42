/** What happened to one item of a group: its result, or why it alone failed. */
export type Outcome<R> = { row: R } | { error: unknown };

/** `run`'s result or its failure (thrown at once or later) as its outcome: one item that fails alone. */
export async function settle<R>(run: () => Promise<R>): Promise<Outcome<R>> {
  try {
    return { row: await run() };
  } catch (error) {
    return { error };
  }
}

export interface CoalescerOptions<I, R> {
  /** Runs one group; one outcome per item, in order. Throwing fails every item of the group. */
  runGroup(items: I[]): Promise<Array<Outcome<R>>>;
  maxGroup: number;
  /** Groups running at once; while all are busy, new items gather for the next group. */
  inFlight: number;
}

interface Waiting<I, R> {
  item: I;
  resolve(row: R): void;
  reject(err: unknown): void;
}

/**
 * Items submitted concurrently are handled as one group (one transaction, one request), each
 * caller answered with its own outcome. An idle coalescer sends at the next turn of the event
 * loop, so a lone item waits for nothing; under load, items gather while earlier groups run,
 * and a group's fixed cost is paid once for all of them.
 */
export class Coalescer<I, R> {
  private queue: Array<Waiting<I, R>> = [];
  private running = 0;
  private scheduled = false;
  private readonly maxInFlight: number;

  constructor(private readonly opts: CoalescerOptions<I, R>) {
    this.maxInFlight = Math.max(1, opts.inFlight);
  }

  /** Resolves with the item's result once its group has run. */
  submit(item: I): Promise<R> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  // Waits one turn of the event loop first, so items submitted in the same tick share a group.
  private schedule(): void {
    if (this.scheduled || this.running >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.running < this.maxInFlight && this.queue.length > 0) {
        const group = this.queue.splice(0, this.opts.maxGroup);
        this.running++;
        void this.run(group).finally(() => {
          this.running--;
          if (this.queue.length > 0) this.schedule();
        });
      }
    });
  }

  private async run(group: Array<Waiting<I, R>>): Promise<void> {
    let outcomes: Array<Outcome<R>>;
    try {
      outcomes = await this.opts.runGroup(group.map((w) => w.item));
    } catch (err) {
      for (const w of group) w.reject(err);
      return;
    }
    for (const [i, w] of group.entries()) {
      const o = outcomes[i];
      if (o === undefined) w.reject(new Error("the group gave no outcome for this item"));
      else if ("row" in o) w.resolve(o.row);
      else w.reject(o.error);
    }
  }
}
