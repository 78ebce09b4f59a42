export { type ApiRecord, leafOfRecord } from "../../formats/record/api-record.js";
export { keysFromKeySet } from "./keys.js";
export { type Verdict, verifyRecordReceipt } from "./record.js";
export { claimsRegisteredStatement } from "./tree-leaf.js";
