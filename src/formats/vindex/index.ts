// vindex/v1: the verifiable index's map from positions (32 bytes) to the log entries filed under
// them, as a sparse Merkle trie with proofs of presence and absence, and the revision entries
// that bind its roots to the log's checkpoints.
export { VindexError } from "./error.js";
export { leafHash } from "./hash.js";
export { type VindexProof, verifyVindexProof } from "./proof.js";
export { decodeProof, encodeProof } from "./proof-json.js";
export { decodeRevision, encodeRevision, REVISION_SIZE, type VindexRevision } from "./revision.js";
export { VindexTrie } from "./trie.js";
export {
  appendIndex,
  appendToStateAt,
  chainOf,
  emptyValue,
  stateCommitmentAt,
  stateCount,
  VALUE_STATE_SIZE,
  type ValueChain,
  valueCommitment,
  valueStateAt,
} from "./value.js";
