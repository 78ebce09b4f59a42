import { consistencyRanges, inclusionRanges, type NodeCoord, type NodeGetter, rangeNodes } from "./coords.js";
import { type Hash, nodeHash } from "./hash.js";

/** MTH(D[a:b]) from stored perfect subtrees: their right fold. */
function rangeHash(a: number, b: number, get: NodeGetter): Hash {
  const nodes = rangeNodes(a, b).map((c) => get(c.level, c.idx));
  let h = nodes.pop() as Hash;
  while (nodes.length > 0) h = nodeHash(nodes.pop() as Hash, h);
  return h;
}

/** The root of the tree of `size` leaves (size ≥ 1). */
export function treeRoot(size: number, get: NodeGetter): Hash {
  return rangeHash(0, size, get);
}

/** Stored subtrees `treeRoot` reads. */
export function rootNodes(size: number): NodeCoord[] {
  return rangeNodes(0, size);
}

/** Stored subtrees an inclusion proof (or a consistency proof) reads. */
export function inclusionProofNodes(index: number, size: number): NodeCoord[] {
  return inclusionRanges(index, size).flatMap(([a, b]) => rangeNodes(a, b));
}

export function consistencyProofNodes(from: number, to: number): NodeCoord[] {
  return consistencyRanges(from, to).flatMap(([a, b]) => rangeNodes(a, b));
}

/** RFC 9162 §2.1.3.1 inclusion proof of leaf `index` in the tree of `size` leaves. */
export function inclusionProof(index: number, size: number, get: NodeGetter): Hash[] {
  return inclusionRanges(index, size).map(([a, b]) => rangeHash(a, b, get));
}

/** RFC 9162 §2.1.4.1 consistency proof from the tree of `from` leaves to that of `to`. */
export function consistencyProof(from: number, to: number, get: NodeGetter): Hash[] {
  return consistencyRanges(from, to).map(([a, b]) => rangeHash(a, b, get));
}
