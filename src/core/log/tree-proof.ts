// Making RFC 9162 proofs is the service's work: a verifier only checks the proofs it is given
// (the room's rfc9162/verify.ts), so this lives outside the audit room, on the room's
// coordinates and range hashing.

import type { NodeCoord, NodeGetter } from "../../formats/rfc9162/coords.js";
import * as rfc9162 from "../../formats/rfc9162/index.js";

type Hash = rfc9162.Hash;
const { consistencyRanges, inclusionRanges, rangeHash, rangeNodes } = rfc9162;

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

/** RFC 9162 §2.1.4.1 consistency proof from the tree of `from` leaves to that of `to`. */
export function consistencyProof(from: number, to: number, get: NodeGetter): Hash[] {
  return consistencyRanges(from, to).map(([a, b]) => rangeHash(a, b, get));
}
