import type { Sha256 } from "../crypto/sha256.js";
import {
  consistencyRanges,
  frontier,
  inclusionRanges,
  type NodeCoord,
  type NodeGetter,
  rangeNodes,
} from "./coords.js";
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

export interface NewNode extends NodeCoord {
  hash: Hash;
}

/**
 * Appends leaf hashes to a tree of `size` leaves: every perfect subtree the new leaves
 * complete, in order (each leaf followed by the parents it completes). Left siblings come
 * from the current frontier (via `get`, see `frontier`) or from this call's own nodes. The
 * service passes node:crypto's SHA-256 (`hashWith`).
 */
export function appendLeafHashes(
  size: number,
  leaves: Hash[],
  get: NodeGetter,
  hashWith?: Sha256,
): NewNode[] {
  // The left sibling of a right child (level, idx) is (level, idx − 1): the last left child this
  // call made at that level, or, when it made none there yet, a node of the frontier. Nodes of a
  // level are made in index order, so one slot per level holds it (a map of every node made, by a
  // string key, was a share of each committed entry's CPU).
  const lastLeft: Array<Hash | undefined> = [];
  const out: NewNode[] = [];
  let n = size;
  for (const leaf of leaves) {
    let level = 0;
    let idx = n;
    let hash = leaf;
    for (;;) {
      out.push({ level, idx, hash });
      if (idx % 2 === 0) {
        lastLeft[level] = hash;
        break;
      }
      hash = nodeHash(lastLeft[level] ?? get(level, idx - 1), hash, hashWith);
      level++;
      idx = (idx - 1) / 2;
    }
    n++;
  }
  return out;
}

/** Stored subtrees `appendLeafHashes` may read. */
export function appendNodesNeeded(size: number): NodeCoord[] {
  return frontier(size);
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
