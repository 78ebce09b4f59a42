import { CodedError } from "../formats/coded-error.js";
import {
  appendToStateAt,
  stateCommitmentAt,
  VALUE_STATE_SIZE,
  VindexTrie,
  valueStateAt,
} from "../formats/vindex/index.js";
import { float64s, grown, int32s, Slots } from "../formats/vindex/trie-nodes.js";
import { PositionTable } from "./position-table.js";

/** A log entry filed under a position, with the position's salt (known once the position is). */
export interface FiledEntry {
  position: Uint8Array;
  log_index: number;
  salt: Uint8Array | null;
}

/** An entry `file` cannot take: outside the range filed, out of order, or a new position without its salt. */
export class IndexEntryRefused extends CodedError<"INDEX_ROWS_BROKEN"> {
  readonly code = "INDEX_ROWS_BROKEN";
}

const NONE = -1;

/**
 * A tenancy's index in memory, as of `logSize` entries and `revisions` signed revisions: the trie
 * (positions to value commitments) and each position's value, its state (salt and chain, as its
 * commitment reads them) and its list. Built from the rows and believed only once its root is the
 * one a signed revision names (`IndexStates`), so a list answered from here is one the signed
 * trie commits to.
 *
 * Values and lists lie side by side in arrays, numbered as their positions are (`PositionTable`):
 * a value's state is a slot of one array, its list a chain of entries (a log index and the next
 * entry's number). An object, a typed array and a string key each per position were a third of a
 * revision's time, in allocation and in the garbage collector's walks of them.
 */
export class TenantIndex {
  readonly trie = new VindexTrie();
  readonly #table = new PositionTable();
  /** Per value: its state, 0x02 ‖ salt ‖ u64be(n) ‖ c_n, as its commitment's input. */
  readonly #values = new Slots(VALUE_STATE_SIZE);
  /** Per value: its list's first and last entries. */
  #first = new Int32Array(1024);
  #last = new Int32Array(1024);
  /** Per entry: its log index and the next entry of its list (NONE at the end). */
  #logIndex = new Float64Array(4096);
  #next = new Int32Array(4096);
  #entries = 0;
  /** Per value: the `file` call that last touched it, so its commitment is made once a call. */
  #touchedIn = new Int32Array(1024);
  #calls = 0;
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
    const call = ++this.#calls;
    const touched: number[] = [];
    const touchedAt: Uint8Array[] = [];
    const seen: Array<{ position: Uint8Array; salt: Uint8Array }> = [];
    for (const e of entries) {
      if (e.log_index < this.logSize || e.log_index >= upTo)
        throw new IndexEntryRefused(`index entry ${e.log_index} is outside [${this.logSize}, ${upTo})`);
      let value = this.#table.find(e.position);
      if (value === NONE) {
        if (!e.salt)
          throw new IndexEntryRefused(
            `index position ${Buffer.from(e.position).toString("hex")} has no salt`,
          );
        value = this.#newValue(e.position, e.salt);
        seen.push({ position: e.position, salt: e.salt });
      }
      const last = this.#last[value] as number;
      if (last !== NONE && e.log_index <= (this.#logIndex[last] as number))
        throw new IndexEntryRefused(
          `index entry ${e.log_index} is filed after entry ${this.#logIndex[last]} under one position`,
        );
      appendToStateAt(this.#values.chunk(value), this.#values.offset(value), e.log_index);
      this.#append(value, e.log_index);
      if (this.#touchedIn[value] !== call) {
        this.#touchedIn[value] = call;
        touched.push(value);
        touchedAt.push(e.position);
      }
    }
    const commitment = this.#commitment;
    for (let i = 0; i < touched.length; i++) {
      const value = touched[i] as number;
      stateCommitmentAt(this.#values.chunk(value), this.#values.offset(value), commitment, 0);
      this.trie.set(touchedAt[i] as Uint8Array, commitment);
    }
    this.logSize = upTo;
    return seen;
  }

  /**
   * The log entries filed under the position below `size`, in log order: the list as it stood
   * when the log had `size` entries (a revision since appends only entries at or above its old size).
   */
  indicesBelow(position: Uint8Array, size: number): number[] {
    const indices: number[] = [];
    const value = this.#table.find(position);
    if (value === NONE) return indices;
    for (let e = this.#first[value] as number; e !== NONE; e = this.#next[e] as number) {
      const index = this.#logIndex[e] as number;
      if (index >= size) break;
      indices.push(index);
    }
    return indices;
  }

  root(): Uint8Array {
    return this.trie.root();
  }

  /** A position's empty value under `salt`, in the table. */
  #newValue(position: Uint8Array, salt: Uint8Array): number {
    const value = this.#table.add(position);
    if (this.#values.add() !== value)
      throw new Error("the index's values are out of step with its positions");
    valueStateAt(this.#values.chunk(value), this.#values.offset(value), salt);
    // The growth is tested here, not in `grown`: a call per value to a function that sees three
    // kinds of typed array made the whole filing ~25 % slower (its calls megamorphic).
    if (value >= this.#first.length) {
      this.#first = grown(this.#first, value + 1, int32s);
      this.#last = grown(this.#last, value + 1, int32s);
      this.#touchedIn = grown(this.#touchedIn, value + 1, int32s);
    }
    this.#first[value] = NONE;
    this.#last[value] = NONE;
    return value;
  }

  /** Appends a log index to a value's list. */
  #append(value: number, logIndex: number): void {
    const entry = this.#entries++;
    if (entry >= this.#next.length) {
      this.#next = grown(this.#next, entry + 1, int32s);
      this.#logIndex = grown(this.#logIndex, entry + 1, float64s);
    }
    this.#logIndex[entry] = logIndex;
    this.#next[entry] = NONE;
    const last = this.#last[value] as number;
    if (last === NONE) this.#first[value] = entry;
    else this.#next[last] = entry;
    this.#last[value] = entry;
  }
}
