/**
 * A bounded map that forgets in generations: once the current one holds `max` entries, it
 * becomes the previous one and the one before is dropped whole, so the newest `max` to `2 × max`
 * entries are kept. Evicting the oldest entry one at
 * a time through `keys().next()` walked the holes deleted entries leave at the front of V8's
 * table, ~6 µs an eviction at 10,000 entries: 3 % of a busy delivery worker's CPU, one per new vCon
 * (docs/performance.md).
 */
export class Generations<K, V> {
  private current = new Map<K, V>();
  private previous = new Map<K, V>();

  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    return this.current.get(key) ?? this.previous.get(key);
  }

  set(key: K, value: V): void {
    if (this.current.size >= this.max) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, value);
  }
}
