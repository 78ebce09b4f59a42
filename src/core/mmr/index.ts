export { appendLeaves, appendNodesNeeded } from "./append.js";
export { consistencyProof, consistencyProofIndices, verifyConsistency } from "./consistency.js";
export { type Hash, hashPosPair, type NodeGetter, sameHash } from "./hash.js";
export {
  firstMmrSize,
  heightIndex,
  isValidMmrSize,
  leafCount,
  leafIndexOfMmrIndex,
  mmrIndexOfLeaf,
  peakHeights,
  peakIndices,
} from "./indices.js";
export { peakHashes } from "./peaks.js";
export { includedRoot, inclusionProof, inclusionProofIndices, peakOf, verifyInclusion } from "./proof.js";
