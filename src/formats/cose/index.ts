export { coseKeySet, publicKeyFromCoseKey } from "./keys.js";
export {
  decodeReceipt,
  VDS_MMR,
  verifyReceipt,
} from "./receipt.js";
export {
  decodeRfc9162Receipt,
  receiptVds,
  VDS_RFC9162,
  verifyRfc9162Receipt,
} from "./receipt-rfc9162.js";
export { decodeSeal, verifySeal } from "./seal.js";
export {
  CoseError,
  decodeSign1,
  ES256,
  HEADER,
  type Sign1,
  verifySign1,
} from "./sign1.js";
