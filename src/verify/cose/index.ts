export { coseKeyBytes, coseKeySet, publicKeyFromCoseKey } from "./keys.js";
export {
  buildReceipt,
  decodeReceipt,
  type MmrProofForm,
  VDS_MMR,
  verifyReceipt,
} from "./receipt.js";
export { ReceiptHeaders } from "./receipt-headers.js";
export {
  buildRfc9162Receipt,
  decodeRfc9162Receipt,
  receiptVds,
  VDS_RFC9162,
  verifyRfc9162Receipt,
} from "./receipt-rfc9162.js";
export { buildSeal, decodeSeal, verifySeal } from "./seal.js";
export {
  CoseError,
  decodeSign1,
  ES256,
  HEADER,
  type Sign1,
  type Signer,
  signSign1,
  sigStructure,
  verifySign1,
} from "./sign1.js";
