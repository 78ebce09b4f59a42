export { verifyConsistency } from "./consistency.js";
export {
  heightIndex,
  isValidMmrSize,
  leafCount,
  leafIndexOfMmrIndex,
  mmrIndexOfLeaf,
  peakIndices,
} from "./indices.js";
export { includedRoot, inclusionProof, inclusionProofIndices, verifyInclusion } from "./proof.js";
