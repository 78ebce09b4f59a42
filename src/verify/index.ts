/**
 * The verifier: everything needed to check the service's evidence offline, with the keys it
 * publishes and nothing else. No store, no HTTP, no file system: the CLI, the /verify and
 * /console pages (bundled for the browser) and any other program (`vcon-archivist/verify`)
 * run the same checks. Every check is a pure function of bytes and keys; fetching them is the
 * caller's business.
 *
 * - records (asset events, asset-free events) and their receipts, both profiles:
 *   `verifyRecordReceipt`, `leafOfRecord`, `keysFromKeySet`;
 * - signed and transparent statements with their SCITT receipts: `verifyStatement`,
 *   `statementPayloadMatches`;
 * - evidence bundles: `parseBundle`, `verifyBundle` (each failure a code of `BUNDLE_FAILURES`);
 * - a log's seals, each consistent with the one before: `verifySeal`, `verifyMmrConsistency`;
 * - C2SP checkpoints and tiles: `verifyCheckpoint`, `verifyRecordInTiles`, `rootFromTiles`;
 * - C2SP tlog-proofs (offline proofs of a record in a checkpoint): `verifyRecordTlogProofReport`
 *   (judged against the caller's roots), `verifyRecordTlogProof`, `parseTlogProof`;
 * - the vCon lifecycle: its vocabulary (`LIFECYCLE_OPERATIONS`, `recordLifecycle`) and a vCon's
 *   consent and processing report made from a verified bundle (`bundleConsentReport`); an
 *   analysis's derivation (draft-howe-vcon-provenance) against the one registered
 *   (`analysisDerivation`, `checkDerivation`).
 */

export {
  BUNDLE_FAILURES,
  type BundleCheckpoint,
  BundleError,
  type BundleFailure,
  type BundleFailureCode,
  type BundleLog,
  type BundleRecord,
  type BundleReport,
  type EvidenceBundle,
  looksLikeBundle,
  parseBundle,
  verifyBundle,
} from "./bundle/index.js";
export { decodeSeal, verifySeal } from "./cose/index.js";
export {
  type EcJwk,
  type PublicKey,
  type PublicKeyFactory,
  publicKeyFromJwk,
  type SignatureHash,
} from "./crypto/public-key.js";
export { analysisDerivation, checkDerivation, type Derivation } from "./lifecycle/provenance.js";
export {
  bundleConsentReport,
  type ConsentReport,
  consentReportText,
} from "./lifecycle/report.js";
export {
  LIFECYCLE_OPERATIONS,
  type LifecycleOperation,
  type RecordLifecycle,
  recordLifecycle,
} from "./lifecycle/vocabulary.js";
export { verifyConsistency as verifyMmrConsistency } from "./mmr/index.js";
export { statementPayloadMatches } from "./payload.js";
export {
  type ApiRecord,
  keysFromKeySet,
  leafOfRecord,
  type Verdict,
  verifyRecordReceipt,
} from "./receipts/index.js";
// From its own module: scitt's index also carries the registration policy, whose X.509 checks
// have no browser counterpart.
export { type TransparentVerdict, verifyStatement } from "./scitt/transparent.js";
export {
  type CheckpointVerdict,
  type LogTrust,
  parseCheckpoint,
  parseTlogProof,
  type RecordInLogVerdict,
  rootFromTiles,
  type TileFetch,
  type TileRef,
  type TlogProofVerdict,
  verifyCheckpoint,
  verifyRecordInTiles,
  verifyRecordTlogProof,
} from "./tlog/index.js";
export {
  cannotEvaluate,
  EXIT_CODES,
  emptyPolicy,
  type IssuerKeys,
  judgeCheckpoint,
  type KeyFingerprint,
  keyFingerprint,
  noTrust,
  PolicyError,
  parsePolicy,
  type Quorum,
  quorumMet,
  type RecordInLogReport,
  type TrustLevel,
  type TrustPolicy,
  type TrustRoots,
  VERDICT_CODES,
  type VerdictCode,
  type VerificationVerdict,
  verifyRecordInLog,
  verifyRecordTlogProofReport,
  witnessGroup,
} from "./verdict/index.js";
