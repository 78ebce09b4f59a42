import type { Sha256 } from "../crypto/sha256.js";
import { type Hash, hashPosPair, type NodeGetter } from "./hash.js";
import { heightIndex, isValidMmrSize, peakIndices } from "./indices.js";

/** The existing nodes `appendLeaves` may read: the peaks of the current MMR. */
export function appendNodesNeeded(mmrSize: number): number[] {
  return mmrSize === 0 ? [] : peakIndices(mmrSize);
}

/**
 * Appends leaves, returning every new node in index order (each leaf followed by the
 * interior nodes it completes) and the MMR index of each leaf. Parents come from the
 * previous peaks (via getNode) or from nodes added in this call. The service passes
 * node:crypto's SHA-256 (`hash`).
 */
export function appendLeaves(
  mmrSize: number,
  leaves: Hash[],
  getNode: NodeGetter,
  hash?: Sha256,
): { nodes: Hash[]; newSize: number; leafIndices: number[] } {
  if (!isValidMmrSize(mmrSize)) throw new RangeError(`${mmrSize} is not a complete MMR size`);
  const nodes: Hash[] = [];
  const leafIndices: number[] = [];
  const node = (i: number) => (i >= mmrSize ? (nodes[i - mmrSize] as Hash) : getNode(i));
  let size = mmrSize;
  for (const leaf of leaves) {
    leafIndices.push(size);
    nodes.push(leaf);
    let i = size;
    let value = leaf;
    size++;
    for (let g = 0; heightIndex(i + 1) > g; g++) {
      value = hashPosPair(i + 2, node(i + 1 - 2 ** (g + 1)), value, hash);
      nodes.push(value);
      i++;
      size++;
    }
  }
  return { nodes, newSize: size, leafIndices };
}
