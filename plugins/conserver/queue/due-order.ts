/** What the in-process queue orders: anything that becomes due at `readyAt` (ms since the epoch). */
export interface Due {
  readyAt: number;
}

/**
 * Entries in the order they become due: a binary min-heap on `readyAt`, ties in insertion order.
 * A backlog of tens of thousands of jobs (a conserver catching up) costs O(log n) per push and
 * pop; re-sorting the whole list at every add and every finished job made it O(n) each.
 */
export class DueHeap<E extends Due> {
  private readonly items: Array<{ e: E; seq: number }> = [];
  private seq = 0;

  get size(): number {
    return this.items.length;
  }

  peek(): E | undefined {
    return this.items[0]?.e;
  }

  push(e: E): void {
    const items = this.items;
    items.push({ e, seq: this.seq++ });
    let i = items.length - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (!this.before(i, up)) break;
      this.swap(i, up);
      i = up;
    }
  }

  pop(): E | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top?.e;
    items[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < items.length && this.before(l, min)) min = l;
      if (r < items.length && this.before(r, min)) min = r;
      if (min === i) break;
      this.swap(i, min);
      i = min;
    }
    return top.e;
  }

  private before(a: number, b: number): boolean {
    const x = this.items[a] as { e: E; seq: number };
    const y = this.items[b] as { e: E; seq: number };
    return x.e.readyAt < y.e.readyAt || (x.e.readyAt === y.e.readyAt && x.seq < y.seq);
  }

  private swap(a: number, b: number): void {
    const items = this.items;
    [items[a], items[b]] = [items[b] as { e: E; seq: number }, items[a] as { e: E; seq: number }];
  }
}

/** First in, first out, with O(1) amortised `shift` (Array#shift moves every element). */
export class Fifo<E> {
  private items: E[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(e: E): void {
    this.items.push(e);
  }

  shift(): E | undefined {
    if (this.head >= this.items.length) return undefined;
    const e = this.items[this.head] as E;
    this.head += 1;
    // Drop the taken prefix once it is half the array (and not tiny): each element is moved at
    // most once more, and a short queue does not copy at every shift.
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return e;
  }
}
