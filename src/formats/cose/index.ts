export { coseKeyBytes, coseKeySet, publicKeyFromCoseKey } from "./keys.js";
export {
  decodeReceipt,
  INCLUSION,
  LEAF_IDTIMESTAMP,
  type MmrProofForm,
  VDS_MMR,
  verifyReceipt,
} from "./receipt.js";
export {
  decodeRfc9162Receipt,
  type Rfc9162ReceiptInfo,
  receiptVds,
  VDS_RFC9162,
  verifyRfc9162Receipt,
} from "./receipt-rfc9162.js";
export { decodeSeal, type SealState, verifySeal } from "./seal.js";
export {
  beginSigStructure,
  CoseError,
  decodeSign1,
  ES256,
  HEADER,
  SIGNATURE1,
  type Sign1,
  verifySign1,
} from "./sign1.js";
