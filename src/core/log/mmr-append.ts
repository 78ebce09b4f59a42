// Growing the MMR is the service's work: a verifier only reads proofs against peaks it is given,
// so this lives outside the audit room and reads the node hashing of the formats (src/formats/mmr).

import type { Sha256 } from "../../formats/crypto/sha256.js";
import { hashPosPair, type NodeGetter } from "../../formats/mmr/hash.js";
import { isValidMmrSize, leafCount, peakIndices } from "../../formats/mmr/indices.js";

/** A 32-byte node value, as the room's hashing makes it. */
type Hash = ReturnType<NodeGetter>;

/** The existing nodes `appendLeaves` may read: the peaks of the current MMR. */
export function appendNodesNeeded(mmrSize: number): number[] {
  return mmrSize === 0 ? [] : peakIndices(mmrSize);
}

/**
 * The `getNode` of an append over the nodes read for it (`appendNodesNeeded`): a node missing
 * from them means the log's stored rows are incomplete, which no append may paper over.
 */
export function knownNode(known: ReadonlyMap<number, Hash>, tenantId: string): NodeGetter {
  return (i) => {
    const n = known.get(i);
    if (!n) throw new Error(`log ${tenantId} is missing node ${i}`);
    return n;
  };
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
  let leafNumber = leafCount(mmrSize);
  for (const leaf of leaves) {
    leafIndices.push(size);
    nodes.push(leaf);
    let i = size;
    let value = leaf;
    size++;
    // Leaf number n completes one parent per trailing 1 bit of n: the peaks it merges with. Read
    // from the count, not from each new index's height (a loop of bit lengths per node, ~2 % of
    // a profile's samples under ingest).
    for (let g = 0, n = leafNumber; n % 2 === 1; g++, n = (n - 1) / 2) {
      value = hashPosPair(i + 2, node(i + 1 - 2 ** (g + 1)), value, hash);
      nodes.push(value);
      i++;
      size++;
    }
    leafNumber++;
  }
  return { nodes, newSize: size, leafIndices };
}

/** Peak values of a complete MMR, left to right. */
export function peakHashes(mmrSize: number, getNode: NodeGetter): Hash[] {
  return peakIndices(mmrSize).map(getNode);
}
