export { coseKey, coseKeySet, publicKeyFromCoseKey } from "./keys.js";
export {
  buildReceipt,
  decodeReceipt,
  type ReceiptInfo,
  type ReceiptInput,
  VDS_MMR,
  verifyReceipt,
} from "./receipt.js";
export { ReceiptHeaders } from "./receipt-headers.js";
export {
  buildRfc9162Receipt,
  decodeRfc9162Receipt,
  type Rfc9162ReceiptInfo,
  type Rfc9162ReceiptInput,
  receiptVds,
  VDS_RFC9162,
  verifyRfc9162Receipt,
} from "./receipt-rfc9162.js";
export { buildSeal, decodeSeal, type SealState, verifySeal } from "./seal.js";
export {
  CoseError,
  decodeSign1,
  ES256,
  ES384,
  HEADER,
  nodeSigner,
  type Sign1,
  type Signer,
  signSign1,
  signSign1Encoded,
  sigStructure,
  verifySign1,
} from "./sign1.js";
