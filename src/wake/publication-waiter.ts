/** One request's wait: its check, its deadline, and how it is answered. */
interface Waiting {
  check: () => Promise<unknown>;
  deadline: number;
  settle: (value: unknown) => void;
  fail: (err: unknown) => void;
}

/**
 * The process's one waiter for publication (a log sealed, so a receipt can be had): every request
 * that waits for its entry's seal (SCRAPI's registration with a wait) parks its check here. A seal
 * in this process, or a wake-up from another one, runs every parked check once; a fallback poll
 * does the same while any wait is parked, so a lost wake-up only delays. One timer and one round
 * of checks per wake for all waiters, where each request used to poll the database on its own.
 */
export class PublicationWaiter {
  private readonly waiting = new Set<Waiting>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(private readonly fallbackMs: number) {}

  /**
   * Resolves with what `check` finds (anything but undefined) once a publication makes it
   * find something, or undefined after `timeoutMs`. Checks at once: the seal may already be
   * there. A check that throws ends the wait with its error.
   */
  wait<T>(check: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
    return new Promise<T | undefined>((resolve, reject) => {
      // Parked before its first check: a seal between that check and parking would be missed.
      const w: Waiting = {
        check,
        deadline: Date.now() + Math.max(0, timeoutMs),
        settle: resolve as (v: unknown) => void,
        fail: reject,
      };
      this.waiting.add(w);
      void this.recheck(w).finally(() => this.schedule());
    });
  }

  /** A log was sealed (here or, by wake-up, in another process): re-check every waiting request. */
  published(): void {
    if (this.waiting.size > 0) void this.round();
  }

  /** Answers every waiting request with undefined (the service is stopping). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const w of this.waiting) w.settle(undefined);
    this.waiting.clear();
  }

  private schedule(): void {
    if (this.timer || this.waiting.size === 0) return;
    const next = Math.min(this.fallbackMs, ...[...this.waiting].map((w) => w.deadline - Date.now()));
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.round();
      },
      Math.max(0, next),
    );
    this.timer.unref();
  }

  /** One round of checks; a wake-up during a round asks for one more after it. */
  private round(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await Promise.all([...this.waiting].map((w) => this.recheck(w)));
      } while (this.again && this.waiting.size > 0);
    })().finally(() => {
      this.running = undefined;
      this.schedule();
    });
    return this.running;
  }

  private async recheck(w: Waiting): Promise<void> {
    try {
      const found = await w.check();
      if (!this.waiting.has(w)) return;
      if (found !== undefined || Date.now() >= w.deadline) {
        this.waiting.delete(w);
        w.settle(found);
      }
    } catch (err) {
      if (this.waiting.delete(w)) w.fail(err);
    }
  }
}
