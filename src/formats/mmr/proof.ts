import { type Hash, hashPosPair, type NodeGetter, sameHash } from "./hash.js";
import { heightIndex, isValidMmrSize, peakIndices } from "./indices.js";

/** Indices of the siblings on the path from node i up to the peak that commits it in an MMR of `mmrSize`. */
export function inclusionProofIndices(mmrSize: number, i: number): number[] {
  if (!isValidMmrSize(mmrSize) || !Number.isSafeInteger(i) || i < 0 || i >= mmrSize)
    throw new RangeError(`node ${i} is not in an MMR of size ${mmrSize}`);
  const path: number[] = [];
  let g = heightIndex(i);
  for (;;) {
    const isRight = heightIndex(i + 1) > g;
    const sibling = isRight ? i - (2 ** (g + 1) - 1) : i + 2 ** (g + 1) - 1;
    const parent = isRight ? i + 1 : sibling + 1;
    if (parent >= mmrSize) return path;
    path.push(sibling);
    i = parent;
    g++;
  }
}

/** Sibling values of the inclusion path of node i. */
export function inclusionProof(mmrSize: number, i: number, getNode: NodeGetter): Hash[] {
  return inclusionProofIndices(mmrSize, i).map(getNode);
}

/** The peak an inclusion path leads to, from node i's value. */
export function includedRoot(i: number, nodeHash: Hash, proof: Hash[]): Hash {
  let root = nodeHash;
  let g = heightIndex(i);
  for (const sibling of proof) {
    if (heightIndex(i + 1) > g) {
      i += 1;
      root = hashPosPair(i + 1, sibling, root);
    } else {
      i += 2 ** (g + 1);
      root = hashPosPair(i + 1, root, sibling);
    }
    g++;
  }
  return root;
}

/** The index of the peak of `mmrSize` whose subtree holds node i. */
function peakOf(mmrSize: number, i: number): number {
  const peak = peakIndices(mmrSize).find((p) => p >= i);
  if (peak === undefined) throw new RangeError(`node ${i} is not in an MMR of size ${mmrSize}`);
  return peak;
}

/** True when the path from node i leads to the right peak of the MMR whose peaks are given. */
export function verifyInclusion(
  mmrSize: number,
  i: number,
  nodeHash: Hash,
  proof: Hash[],
  peaks: Hash[],
): boolean {
  try {
    const indices = peakIndices(mmrSize);
    if (peaks.length !== indices.length || i < 0 || i >= mmrSize) return false;
    if (proof.length !== inclusionProofIndices(mmrSize, i).length) return false;
    const want = peaks[indices.indexOf(peakOf(mmrSize, i))];
    return want !== undefined && sameHash(includedRoot(i, nodeHash, proof), want);
  } catch {
    return false;
  }
}
