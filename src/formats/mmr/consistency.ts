import { type Hash, sameHash } from "./hash.js";
import { peakIndices } from "./indices.js";
import { verifyInclusion } from "./proof.js";

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
