export {
  MAX_TREE_SIZE,
  type NodeCoord,
  type NodeGetter,
} from "./coords.js";
export { type Hash, leafHash, nodeHash, sameHash } from "./hash.js";
export {
  appendLeafHashes,
  appendNodesNeeded,
  consistencyProof,
  consistencyProofNodes,
  inclusionProof,
  inclusionProofNodes,
  type NewNode,
  rootNodes,
  treeRoot,
} from "./tree.js";
export { rootFromInclusionProof, verifyConsistency, verifyInclusion } from "./verify.js";
