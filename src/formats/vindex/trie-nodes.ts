// Where the trie keeps its nodes: side by side in a few large arrays, not as an object and a
// buffer each. At 320,000 positions the object-per-node trie held ~600 MB of heap for the garbage
// collector to trace (a sixth of an index revision's time) and every step down a path was a
// cache miss on an object and another on its buffer; here a branch is 32 bytes of one Int32Array
// and its bytes a slot of one chunk.
import { HASH_SIZE } from "./hash.js";

/** Nodes per chunk of bytes: chunks are added, never moved, so a slot's array stays valid. */
const CHUNK_BITS = 14;
const CHUNK_MASK = (1 << CHUNK_BITS) - 1;

/** Fixed-size byte slots, in chunks of 2^14. */
export class Slots {
  readonly #chunks: Uint8Array[] = [];
  #count = 0;

  constructor(readonly size: number) {}

  get count(): number {
    return this.#count;
  }

  /** A new slot of zero bytes: its index. */
  add(): number {
    const id = this.#count++;
    if ((id & CHUNK_MASK) === 0) this.#chunks.push(new Uint8Array(this.size << CHUNK_BITS));
    return id;
  }

  /** The array slot `id` lies in. */
  chunk(id: number): Uint8Array {
    return this.#chunks[id >>> CHUNK_BITS] as Uint8Array;
  }

  /** Where slot `id` starts in its chunk. */
  offset(id: number): number {
    return (id & CHUNK_MASK) * this.size;
  }
}

type Growable = Int32Array<ArrayBuffer> | Uint8Array<ArrayBuffer> | Float64Array<ArrayBuffer>;

/** `array`, or a copy of it (made by `make`) doubled until index `needed - 1` is in it. */
export function grown<T extends Growable>(array: T, needed: number, make: (length: number) => T): T {
  if (needed <= array.length) return array;
  let length = array.length;
  while (length < needed) length *= 2;
  const out = make(length);
  out.set(array);
  return out;
}

/** Makers for `grown`, made once (not a closure per call on the hot paths). */
export const int32s = (length: number): Int32Array<ArrayBuffer> => new Int32Array(length);
export const uint8s = (length: number): Uint8Array<ArrayBuffer> => new Uint8Array(length);
export const float64s = (length: number): Float64Array<ArrayBuffer> => new Float64Array(length);

/** Copies 32 bytes. */
export function copy32(from: Uint8Array, at: number, to: Uint8Array, toAt: number): void {
  for (let i = 0; i < HASH_SIZE; i++) to[toAt + i] = from[at + i] as number;
}

/** Whether the 32 bytes of `a` at `at` are `b`'s. */
export function same32(a: Uint8Array, at: number, b: Uint8Array): boolean {
  for (let i = 0; i < HASH_SIZE; i++) if (a[at + i] !== b[i]) return false;
  return true;
}
