import { inclusionRanges, type NodeGetter, rangeNodes } from "./coords.js";
import { type Hash, nodeHash } from "./hash.js";

/** MTH(D[a:b]) from stored perfect subtrees: their right fold (proofs are made of these: core/log/tree-proof.ts). */
export function rangeHash(a: number, b: number, get: NodeGetter): Hash {
  const nodes = rangeNodes(a, b).map((c) => get(c.level, c.idx));
  let h = nodes.pop() as Hash;
  while (nodes.length > 0) h = nodeHash(nodes.pop() as Hash, h);
  return h;
}

/** The root of the tree of `size` leaves (size ≥ 1). */
export function treeRoot(size: number, get: NodeGetter): Hash {
  return rangeHash(0, size, get);
}

/** RFC 9162 §2.1.3.1 inclusion proof of leaf `index` in the tree of `size` leaves. */
export function inclusionProof(index: number, size: number, get: NodeGetter): Hash[] {
  return inclusionRanges(index, size).map(([a, b]) => rangeHash(a, b, get));
}
