/**
 * The verifier, package entry `vcon-archivist/verify`: everything a third party needs to check
 * the service's evidence offline, with the keys it publishes and nothing else. No store, no
 * HTTP, no file system, no `node:` module: the CLI, the /verify and /console pages (bundled for
 * the browser) and any other program run the same checks, pure functions of bytes and keys.
 * Fetching them is the caller's business. A small surface, each export documented with an
 * example (README's "As a library" lists it; a test holds the two to each other):
 *
 * - a verify function per kind of evidence: `verifyRecordReceipt` (a record and its receipt;
 *   keys by `keysFromKeySet` or `publicKeyFromJwk`; `leafOfRecord`), `verifyStatement` and
 *   `statementPayloadMatches` (a transparent statement), `verifyBundle` (an evidence bundle,
 *   `parseBundle`), `verifySeal` and `verifyMmrConsistency` (a log's seals), `verifyCheckpoint`,
 *   `verifyRecordInTiles` and `verifyRecordInLog` (C2SP checkpoints and tiles),
 *   `verifyRecordTlogProof` and `verifyRecordTlogProofReport` (a tlog-proof, `parseTlogProof`),
 *   `bundleConsentReport` (a vCon's consent report from a verified bundle), `checkDerivation`
 *   (an analysis's AI provenance) and `verifyLookup` (the verifiable index's answer for a key, which
 *   a bundle's `index` carries and `verifyBundle` holds against its records: `Completeness`);
 * - the policy and trust roots: `TrustPolicy`, `TrustRoots`, `parsePolicy`, `PolicyError`,
 *   `emptyPolicy`, `noTrust`;
 * - one verdict vocabulary: `VerdictCode` (`VERDICT_CODES`, the CLI's `EXIT_CODES`) on every
 *   report, and a bundle report's failures each a `BundleFailureCode` (`BUNDLE_FAILURES`).
 *
 * - what the CLI, the pages and the conserver's links build on: the verdict's parts (`judge`,
 *   `cannotEvaluate`, `verdictLabel`, `USAGE_EXIT_CODE`), fingerprints and trust (`keyFingerprint`,
 *   `logKeyFingerprint`, `pinsSomething`, `witnessGroup`, `judgeCheckpoint`, `checkpointStanding`),
 *   a record's unsigned fields and registered statements (`unsignedFields`,
 *   `claimsRegisteredStatement`), a log's chain of periods (`verifyPeriodChain`), a vCon's consent
 *   report from records (`consentReport`, `consentReportText`, `pinnedServiceKeys`), an analysis's
 *   derivation (`analysisDerivation`, `analysesWithProvenance`, `PROVENANCE_ATTRIBUTES`,
 *   `PROVENANCE_CONTENT_TYPE`) and the verifiable index audited and rebuilt from a log
 *   (`auditIndex`, `rebuildIndex`, `replayIndex`, `readRecord`).
 *
 * It imports only its own files and the formats (src/formats: CBOR, COSE, MMR and RFC 9162
 * proofs, tlog notes, the record model, the lifecycle's vocabulary, the bundle's format), which the
 * service builds and writes with too. It is the one door: code outside this folder imports no
 * other file of it (test/unit/foundation/verifier-door.test.ts).
 */

export { verifySeal } from "../formats/cose/index.js";
export {
  type EcJwk,
  type Ed25519Key,
  type OkpJwk,
  type PublicKey,
  type PublicKeyFactory,
  publicKeyFromJwk,
  type SignatureKey,
  signatureKeyFromJwk,
} from "../formats/crypto/public-key.js";
export { verifyConsistency as verifyMmrConsistency } from "../formats/mmr/index.js";
export { type ApiRecord, leafOfRecord } from "../formats/record/api-record.js";
export { parseTlogProof, type TileFetch, type TileRef } from "../formats/tlog/index.js";
export type { IndexLookup } from "../formats/vindex/lookup-format.js";
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
  parseBundle,
  verifyBundle,
} from "./bundle/index.js";
export type { Completeness, ProvenLog } from "./bundle/report.js";
export { pinnedServiceKeys } from "./lifecycle/custody.js";
export {
  analysesWithProvenance,
  analysisDerivation,
  checkDerivation,
  type Derivation,
  PROVENANCE_ATTRIBUTES,
  PROVENANCE_CONTENT_TYPE,
} from "./lifecycle/provenance.js";
export {
  bundleConsentReport,
  type ConsentReport,
  consentReport,
  consentReportText,
  type ReportStep,
  type TrailCompleteness,
} from "./lifecycle/report.js";
export { statementPayloadMatches } from "./payload.js";
export { keysFromKeySet, type Verdict, verifyRecordReceipt } from "./receipts/index.js";
export { claimsRegisteredStatement } from "./receipts/tree-leaf.js";
// From its own module: scitt's index also carries the registration policy, whose X.509 checks
// have no browser counterpart.
export { type TransparentVerdict, verifyStatement } from "./scitt/transparent.js";
export {
  type CheckpointVerdict,
  type LogTrust,
  type RecordInLogVerdict,
  verifyCheckpoint,
  verifyRecordInTiles,
} from "./tlog/log-check.js";
export { type ChainPeriod, verifyPeriodChain } from "./tlog/period.js";
export type { TlogProofVerdict } from "./tlog/proof-check.js";
export { verifyRecordTlogProof } from "./tlog/record-proof.js";
export {
  cannotEvaluate,
  checkpointStanding,
  EXIT_CODES,
  emptyPolicy,
  type IssuerKeys,
  judge,
  judgeCheckpoint,
  type KeyFingerprint,
  keyFingerprint,
  logKeyFingerprint,
  noTrust,
  PolicyError,
  parsePolicy,
  pinsSomething,
  type RecordInLogReport,
  type TrustPolicy,
  type TrustRoots,
  USAGE_EXIT_CODE,
  unsignedFields,
  VERDICT_CODES,
  type VerdictCode,
  type VerificationVerdict,
  verdictLabel,
  verifyRecordInLog,
  verifyRecordTlogProofReport,
  witnessGroup,
} from "./verdict/index.js";
export { auditIndex, type IndexAudit, type IndexSource } from "./vindex/audit.js";
export { type LookupProven, type LookupVerdict, verifyLookup } from "./vindex/lookup.js";
export { type IndexRebuild, type RecordSource, rebuildIndex } from "./vindex/rebuild.js";
export { readRecord } from "./vindex/records.js";
export { type FiledRecord, type KeyPlace, type RevisionRoot, replayIndex } from "./vindex/replay.js";
