import { nodeSha256 } from "../core/node/crypto.js";
import { toHex } from "../formats/crypto/bytes.js";
import {
  appendIndex,
  emptyValue,
  type ValueChain,
  VindexTrie,
  valueCommitment,
} from "../formats/vindex/index.js";

/** One position's list as the index keeps it: its salt and its chain (never the list itself). */
interface Filed {
  salt: Uint8Array;
  chain: ValueChain;
}

/** A log entry filed under a position, with the position's salt (known once the position is). */
export interface FiledEntry {
  position: Uint8Array;
  log_index: number;
  salt: Uint8Array | null;
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
    for (const e of entries) {
      if (e.log_index < this.logSize || e.log_index >= upTo)
        throw new Error(`index entry ${e.log_index} is outside [${this.logSize}, ${upTo})`);
      const k = toHex(e.position);
      const had = this.#filed.get(k);
      const salt = had?.salt ?? e.salt;
      if (!salt) throw new Error(`index position ${k} has no salt`);
      const chain = appendIndex(had?.chain ?? emptyValue(), e.log_index, nodeSha256);
      this.#filed.set(k, { salt, chain });
      this.trie.set(e.position, valueCommitment(salt, chain, nodeSha256));
    }
    this.logSize = upTo;
  }

  /** Whether the position has been seen (its salt is kept). */
  knows(position: Uint8Array): boolean {
    return this.#filed.has(toHex(position));
  }

  /** How many entries are filed under the position. */
  count(position: Uint8Array): number {
    return this.#filed.get(toHex(position))?.chain.count ?? 0;
  }

  root(): Uint8Array {
    return this.trie.root();
  }
}
