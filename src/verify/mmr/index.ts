export { appendLeaves, appendNodesNeeded } from "./append.js";
export { consistencyProof, consistencyProofIndices, verifyConsistency } from "./consistency.js";

export {
  heightIndex,
  isValidMmrSize,
  leafCount,
  leafIndexOfMmrIndex,
  mmrIndexOfLeaf,
  peakIndices,
} from "./indices.js";
export { peakHashes } from "./peaks.js";
export { includedRoot, inclusionProof, inclusionProofIndices, verifyInclusion } from "./proof.js";
