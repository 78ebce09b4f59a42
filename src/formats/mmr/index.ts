export { verifyConsistency } from "./consistency.js";
export {
  entryWords,
  heightIndex,
  isValidMmrSize,
  leafCount,
  leafIndexOfMmrIndex,
  mmrIndexOfLeaf,
  peakIndices,
} from "./indices.js";
export { includedRoot, inclusionProof, inclusionProofIndices, verifyInclusion } from "./proof.js";
