export {
  VrfError,
  type VrfSigner,
  vrfHash,
  vrfProofToHash,
  vrfProve,
  vrfPublicKey,
  vrfSigner,
  vrfVerify,
} from "./ecvrf.js";
export {
  cofactorHashPointU,
  montgomeryU,
  VINDEX_OUTPUT_TAG,
  vindexOutputFromProof,
  vindexOutputPure,
} from "./vindex-output.js";
