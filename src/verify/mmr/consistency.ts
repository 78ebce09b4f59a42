import { type Hash, type NodeGetter, sameHash } from "./hash.js";
import { isValidMmrSize, peakIndices } from "./indices.js";
import { inclusionProofIndices, verifyInclusion } from "./proof.js";

/** One inclusion path per peak of the old MMR, into the new one (the draft's consistency proof). */
export function consistencyProofIndices(fromSize: number, toSize: number): number[][] {
  if (!isValidMmrSize(fromSize) || !isValidMmrSize(toSize) || fromSize > toSize)
    throw new RangeError(`no consistency proof from ${fromSize} to ${toSize}`);
  return peakIndices(fromSize).map((p) => inclusionProofIndices(toSize, p));
}

/** Sibling values of the consistency proof. */
export function consistencyProof(fromSize: number, toSize: number, getNode: NodeGetter): Hash[][] {
  return consistencyProofIndices(fromSize, toSize).map((path) => path.map(getNode));
}

/**
 * True when every old peak is included, at its place, under the new MMR's peaks: the new log extends the old one.
 *
 * @example
 * ```ts
 * // Imported as verifyMmrConsistency: the newer seal's log extends the older one's.
 * const extends_ = verifyMmrConsistency(oldSize, newSize, oldPeaks, newPeaks, proofPaths);
 * ```
 */
export function verifyConsistency(
  fromSize: number,
  toSize: number,
  peaksFrom: Hash[],
  peaksTo: Hash[],
  paths: Hash[][],
): boolean {
  try {
    const oldPeaks = peakIndices(fromSize);
    if (fromSize > toSize || peaksFrom.length !== oldPeaks.length || paths.length !== oldPeaks.length)
      return false;
    if (fromSize === toSize)
      return peaksFrom.every((p, k) => peaksTo[k] !== undefined && sameHash(p, peaksTo[k] as Hash));
    return oldPeaks.every((p, k) =>
      verifyInclusion(toSize, p, peaksFrom[k] as Hash, paths[k] as Hash[], peaksTo),
    );
  } catch {
    return false;
  }
}
