// Growing the RFC 9162 tree is the committer's work: a verifier only recomputes roots and proofs
// from nodes it is given, so this lives outside the audit room, on the room's coordinates and hashing.

import type { Sha256 } from "../../formats/crypto/sha256.js";
import type { NodeCoord, NodeGetter } from "../../formats/rfc9162/coords.js";
import { nodeHash } from "../../formats/rfc9162/hash.js";
import * as rfc9162 from "../../formats/rfc9162/index.js";

/** A 32-byte node value. */
type Hash = ReturnType<typeof nodeHash>;

/** The perfect subtrees of a tree of `size` leaves, left to right: what an append needs. */
export function frontier(size: number): NodeCoord[] {
  return size === 0 ? [] : rfc9162.rangeNodes(0, size);
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
