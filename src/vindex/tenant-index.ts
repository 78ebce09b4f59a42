import { CodedError } from "../formats/coded-error.js";
import {
  appendToState,
  stateCommitmentInto,
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

/** An entry `file` cannot take: outside the range filed, out of order, or a new position without its salt. */
export class IndexEntryRefused extends CodedError<"INDEX_ROWS_BROKEN"> {
  readonly code = "INDEX_ROWS_BROKEN";
}

/** A position's value: its state (salt and chain, as its commitment reads them) and its list. */
interface Filed {
  state: ValueState;
  /** The log entries filed under it, in log order: what a lookup answers. */
  indices: number[];
}

/**
 * A tenancy's index in memory, as of `logSize` entries and `revisions` signed revisions: the trie
 * (positions to value commitments) and each position's value, its state and list. Built from the
 * rows and believed only once its root is the one a signed revision names (`IndexStates`), so a
 * list answered from here is one the signed trie commits to.
 */
export class TenantIndex {
  readonly trie = new VindexTrie();
  readonly #filed = new Map<string, Filed>();
  /** Where a position's commitment is made before the trie copies it. */
  readonly #commitment = new Uint8Array(32);

  constructor(
    public logSize = 0,
    public revisions = 0,
  ) {}

  /**
   * Files entries (in log order, all below `upTo`) and moves the index to `upTo` entries. A
   * position seen for the first time must come with its salt; those positions and salts are
   * returned, in the order first seen (what a revision's row keeps of them).
   */
  file(entries: readonly FiledEntry[], upTo: number): Array<{ position: Uint8Array; salt: Uint8Array }> {
    // Each position's commitment and trie leaf once, after all its entries: a batch of events on
    // one asset files every one under the same key.
    const touched = new Map<ValueState, Uint8Array>();
    const seen: Array<{ position: Uint8Array; salt: Uint8Array }> = [];
    for (const e of entries) {
      if (e.log_index < this.logSize || e.log_index >= upTo)
        throw new IndexEntryRefused(`index entry ${e.log_index} is outside [${this.logSize}, ${upTo})`);
      const k = e.id ?? positionKey(e.position);
      let filed = this.#filed.get(k);
      if (!filed) {
        if (!e.salt)
          throw new IndexEntryRefused(
            `index position ${Buffer.from(e.position).toString("hex")} has no salt`,
          );
        filed = { state: valueState(e.salt), indices: [] };
        this.#filed.set(k, filed);
        seen.push({ position: e.position, salt: e.salt });
      }
      const last = filed.indices.at(-1);
      if (last !== undefined && e.log_index <= last)
        throw new IndexEntryRefused(
          `index entry ${e.log_index} is filed after entry ${last} under one position`,
        );
      appendToState(filed.state, e.log_index);
      filed.indices.push(e.log_index);
      touched.set(filed.state, e.position);
    }
    const commitment = this.#commitment;
    for (const [state, position] of touched) {
      stateCommitmentInto(state, commitment);
      this.trie.set(position, commitment);
    }
    this.logSize = upTo;
    return seen;
  }

  /**
   * The log entries filed under the position below `size`, in log order: the list as it stood
   * when the log had `size` entries (a revision since appends only entries at or above its old size).
   */
  indicesBelow(position: Uint8Array, size: number): number[] {
    const indices = this.#filed.get(positionKey(position))?.indices ?? [];
    let n = indices.length;
    while (n > 0 && (indices[n - 1] as number) >= size) n--;
    return indices.slice(0, n);
  }

  root(): Uint8Array {
    return this.trie.root();
  }
}
