export { keysFromKeySet } from "./keys.js";
export { type ApiRecord, leafOfRecord, type Verdict, verifyRecordReceipt } from "./record.js";
export { claimsRegisteredStatement } from "./tree-leaf.js";
