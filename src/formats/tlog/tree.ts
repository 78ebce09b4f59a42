import { sha256 } from "../crypto/sha256.js";
import { type Hash, type NodeGetter, treeRoot as nonEmptyRoot } from "../rfc9162/index.js";

/**
 * The RFC 9162 tree arithmetic of `src/core/rfc9162`, as the C2SP code uses it: roots of any
 * size (the empty tree included), and the subtrees a computation reads.
 */
export {
  type Hash,
  inclusionProof,
  leafHash,
  nodeHash,
  sameHash,
  verifyInclusion,
} from "../rfc9162/index.js";

/** The hash of the perfect subtree at (level, index): leaves [index·2^level, (index+1)·2^level). */
export type PerfectHash = NodeGetter;

/** MTH({}): the hash of the empty string. */
export const EMPTY_ROOT: Hash = sha256();

/** The root of the tree of `size` leaves. */
export function treeRoot(size: number, get: PerfectHash): Hash {
  return size === 0 ? EMPTY_ROOT : nonEmptyRoot(size, get);
}

/**
 * The perfect subtrees a computation reads, found by running it over placeholder hashes (which
 * subtrees it reads never depends on their values): a store or a tile reader fetches exactly
 * these in one go.
 */
export function perfectHashesRead(run: (get: PerfectHash) => unknown): Array<[number, number]> {
  const seen = new Map<string, [number, number]>();
  const zero = new Uint8Array(32);
  run((level, index) => {
    seen.set(`${level}/${index}`, [level, index]);
    return zero;
  });
  return [...seen.values()];
}
