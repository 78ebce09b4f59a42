/**
 * The package's library entry: what a verifier needs, with no store and no HTTP. Records and
 * their receipts (both profiles), transparent statements, evidence bundles, and C2SP
 * checkpoints and tiles, all checked offline with the keys the service publishes.
 */
export {
  BundleError,
  type BundleReport,
  type EvidenceBundle,
  parseBundle,
  verifyBundle,
} from "./core/bundle/index.js";
export { verifyStatement } from "./core/scitt/index.js";
export { type LogTrust, verifyCheckpoint, verifyRecordInTiles } from "./core/tlog/index.js";
export {
  type ApiRecord,
  keysFromKeySet,
  leafOfRecord,
  type Verdict,
  verifyRecordReceipt,
} from "./core/verify/index.js";
