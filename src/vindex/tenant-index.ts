import { nodeSha256 } from "../core/node/crypto.js";
import {
  appendIndex,
  emptyValue,
  type ValueChain,
  VindexTrie,
  valueCommitment,
} from "../formats/vindex/index.js";

/**
 * A position as a map key: its bytes as a latin1 string, one character each, made natively (a hex
 * string made in JavaScript was a tenth of a revision's time under the conserver's load).
 */
export function positionKey(position: Uint8Array): string {
  return Buffer.from(position.buffer, position.byteOffset, position.byteLength).toString("latin1");
}

/** One position's list as the index keeps it: its salt and its chain (never the list itself). */
interface Filed {
  readonly salt: Uint8Array;
  chain: ValueChain;
}

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
 * (positions to value commitments) and each position's chain. Built from the rows and believed
 * only once its root is the one a signed revision names (`IndexStates`).
 */
export class TenantIndex {
  readonly trie = new VindexTrie(nodeSha256);
  readonly #filed = new Map<string, Filed>();

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
    const touched = new Map<string, Uint8Array>();
    for (const e of entries) {
      if (e.log_index < this.logSize || e.log_index >= upTo)
        throw new Error(`index entry ${e.log_index} is outside [${this.logSize}, ${upTo})`);
      const k = e.id ?? positionKey(e.position);
      const had = this.#filed.get(k);
      const salt = had?.salt ?? e.salt;
      if (!salt) throw new Error(`index position ${Buffer.from(e.position).toString("hex")} has no salt`);
      const chain = appendIndex(had?.chain ?? emptyValue(), e.log_index, nodeSha256);
      if (had) had.chain = chain;
      else this.#filed.set(k, { salt, chain });
      touched.set(k, e.position);
    }
    for (const [k, position] of touched) {
      const filed = this.#filed.get(k) as Filed;
      this.trie.set(position, valueCommitment(filed.salt, filed.chain, nodeSha256));
    }
    this.logSize = upTo;
  }

  /** Whether the position has been seen (its salt is kept); `id` is its `positionKey`. */
  knows(position: Uint8Array, id = positionKey(position)): boolean {
    return this.#filed.has(id);
  }

  /** How many entries are filed under the position. */
  count(position: Uint8Array): number {
    return this.#filed.get(positionKey(position))?.chain.count ?? 0;
  }

  root(): Uint8Array {
    return this.trie.root();
  }
}
