/**
 * Runs costly work a bounded number at a time, first come first served, and refuses more than
 * `maxWaiting` callers waiting (`undefined` from `run`: the caller answers "busy"). Scrypt checks
 * of secrets go through one: a scrypt costs ~40 ms of a libuv thread, every wrong secret stored
 * with scrypt costs one, and the pool's four threads are shared with file reads and body
 * inflation. Without the gate, wrong secrets from many addresses (each allowed 30 a minute) ran
 * four scrypts at once and took both cores of a two-core machine from every other caller
 * (docs/performance.md, "Hostile, one kind at a time").
 */
export class WorkGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  /** `work`'s result once a slot was free; `undefined`, without running it, when too many wait. */
  async run<T>(work: () => Promise<T>): Promise<T | undefined> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxWaiting) return undefined;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter, so `running` counts it without a gap.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
