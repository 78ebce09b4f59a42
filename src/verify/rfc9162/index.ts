export {
  MAX_TREE_SIZE,
  type NodeCoord,
  type NodeGetter,
} from "./coords.js";
export { type Hash, leafHash, nodeHash, sameHash } from "./hash.js";
export {
  consistencyProof,
  consistencyProofNodes,
  inclusionProof,
  inclusionProofNodes,
  rootNodes,
  treeRoot,
} from "./tree.js";
export { rootFromInclusionProof, verifyConsistency, verifyInclusion } from "./verify.js";
