import { randomBytes } from "node:crypto";
import { Slots } from "../formats/vindex/trie-nodes.js";

const NONE = -1;

/** This process's seed for `hashAt`: not known to whoever writes the rows. */
const SEED = randomBytes(4).readInt32LE(0);

/**
 * A position's slot number, from all its bytes and this process's seed. Positions are VRF or hash
 * outputs, but the ones read back from the rows are whatever the rows say: a database writer who
 * planted positions alike in the bytes a plain hash reads would turn every search into a walk of
 * the table (and the read of the rows into hours) before their root was ever compared. Without
 * the seed, positions cannot be chosen to meet in one slot.
 */
export function hashAt(bytes: Uint8Array, at: number): number {
  let h = SEED;
  for (let i = at; i < at + 32; i += 4) {
    const word =
      ((bytes[i] as number) << 24) |
      ((bytes[i + 1] as number) << 16) |
      ((bytes[i + 2] as number) << 8) |
      (bytes[i + 3] as number);
    h = Math.imul(h ^ word, 0x9e3779b1);
    h ^= h >>> 15;
  }
  return h >>> 0;
}

function samePosition(a: Uint8Array, at: number, b: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) if (a[at + i] !== b[i]) return false;
  return true;
}

/**
 * Positions numbered in the order first added (0, 1, …), found through an open-addressed table
 * over one Int32Array by their own bytes (`hashAt`). A latin1 string per position, made and hashed
 * for every entry filed, was a map's cost and a heap object the garbage collector walked.
 */
export class PositionTable {
  readonly #positions = new Slots(32);
  #slots = new Int32Array(1 << 12).fill(NONE);

  /** How many positions it holds. */
  get size(): number {
    return this.#positions.count;
  }

  /** The number of `position`, or -1 if it was never added. */
  find(position: Uint8Array): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    for (let i = hashAt(position, 0) & mask; ; i = (i + 1) & mask) {
      const n = slots[i] as number;
      if (n === NONE) return NONE;
      if (samePosition(this.#positions.chunk(n), this.#positions.offset(n), position)) return n;
    }
  }

  /** Adds `position`, which the table does not hold: its number. */
  add(position: Uint8Array): number {
    // At most half full, so a search ends at an empty slot after a step or two.
    if (2 * (this.size + 1) > this.#slots.length) this.#grow();
    const n = this.#positions.add();
    const bytes = this.#positions.chunk(n);
    const at = this.#positions.offset(n);
    bytes.set(position, at);
    this.#place(this.#slots, hashAt(bytes, at), n);
    return n;
  }

  #place(slots: Int32Array, hash: number, n: number): void {
    const mask = slots.length - 1;
    let i = hash & mask;
    while (slots[i] !== NONE) i = (i + 1) & mask;
    slots[i] = n;
  }

  #grow(): void {
    const slots = new Int32Array(this.#slots.length * 2).fill(NONE);
    for (let n = 0; n < this.size; n++)
      this.#place(slots, hashAt(this.#positions.chunk(n), this.#positions.offset(n)), n);
    this.#slots = slots;
  }
}
