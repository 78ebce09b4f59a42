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
