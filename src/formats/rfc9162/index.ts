export {
  consistencyRanges,
  inclusionRanges,
  MAX_TREE_SIZE,
  type NodeCoord,
  type NodeGetter,
  rangeNodes,
} from "./coords.js";
export { type Hash, leafHash, nodeHash, sameHash } from "./hash.js";
export { inclusionProof, rangeHash, treeRoot } from "./tree.js";
export { rootFromInclusionProof, verifyConsistency, verifyInclusion } from "./verify.js";
