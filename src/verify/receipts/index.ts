export { keysFromKeySet } from "./keys.js";
export { type Verdict, verifyRecordReceipt } from "./record.js";
