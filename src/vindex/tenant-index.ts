import {
  appendToState,
  stateCommitmentInto,
  stateCount,
  type ValueState,
  VindexTrie,
  valueState,
} from "../formats/vindex/index.js";
import { positionKey } from "./positions.js";

/** A log entry filed under a position, with the position's salt (known once the position is). */
export interface FiledEntry {
  position: Uint8Array;
  log_index: number;
  salt: Uint8Array | null;
  /** `positionKey(position)` when the caller has it already (a revision's entries do). */
  id?: string;
}

/**
 * A tenancy's index in memory, as of `logSize` entries and `revisions` signed revisions: the trie
 * (positions to value commitments) and each position's value state (its salt and chain, never
 * the list itself). Built from the rows and believed only once its root is the one a signed
 * revision names (`IndexStates`).
 */
export class TenantIndex {
  readonly trie = new VindexTrie();
  readonly #filed = new Map<string, ValueState>();
  /** Where a position's commitment is made before the trie copies it. */
  readonly #commitment = new Uint8Array(32);

  constructor(
    public logSize = 0,
    public revisions = 0,
  ) {}

  /**
   * Files entries (in log order, all below `upTo`) and moves the index to `upTo` entries. A
   * position seen for the first time must come with its salt.
   */
  file(entries: readonly FiledEntry[], upTo: number): void {
    // Each position's commitment and trie leaf once, after all its entries: a batch of events on
    // one asset files every one under the same key.
    const touched = new Map<ValueState, Uint8Array>();
    for (const e of entries) {
      if (e.log_index < this.logSize || e.log_index >= upTo)
        throw new Error(`index entry ${e.log_index} is outside [${this.logSize}, ${upTo})`);
      const k = e.id ?? positionKey(e.position);
      let state = this.#filed.get(k);
      if (!state) {
        if (!e.salt) throw new Error(`index position ${Buffer.from(e.position).toString("hex")} has no salt`);
        state = valueState(e.salt);
        this.#filed.set(k, state);
      }
      appendToState(state, e.log_index);
      touched.set(state, e.position);
    }
    const commitment = this.#commitment;
    for (const [state, position] of touched) {
      stateCommitmentInto(state, commitment);
      this.trie.set(position, commitment);
    }
    this.logSize = upTo;
  }

  /** Whether the position has been seen (its salt is kept); `id` is its `positionKey`. */
  knows(position: Uint8Array, id = positionKey(position)): boolean {
    return this.#filed.has(id);
  }

  /** How many entries are filed under the position. */
  count(position: Uint8Array): number {
    const state = this.#filed.get(positionKey(position));
    return state ? stateCount(state) : 0;
  }

  root(): Uint8Array {
    return this.trie.root();
  }
}
