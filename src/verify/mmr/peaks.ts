import type { Hash, NodeGetter } from "./hash.js";
import { peakIndices } from "./indices.js";

/** Peak values of a complete MMR, left to right. */
export function peakHashes(mmrSize: number, getNode: NodeGetter): Hash[] {
  return peakIndices(mmrSize).map(getNode);
}
