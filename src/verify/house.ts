/**
 * The house's entry to the verifier: what the look-up client, the pages, the CLI and the service take
 * from src/verify beyond its package entry (index.ts). Not a package export.
 */
export { BUNDLE_FORMAT, BUNDLE_VERSION } from "./bundle/format.js";
export { looksLikeBundle } from "./bundle/parse.js";
export {
  type ConsentRole,
  consentOf,
  consentRole,
  lifecycleOrder,
  type PurposeConsent,
  purposesNamed,
} from "./lifecycle/consent.js";
export { pinnedServiceKeys } from "./lifecycle/custody.js";
export {
  analysesWithProvenance,
  analysisDerivation,
  PROVENANCE_ATTRIBUTES,
  PROVENANCE_CONTENT_TYPE,
} from "./lifecycle/provenance.js";
export { consentReport, consentReportText, type ReportStep } from "./lifecycle/report.js";
export {
  LIFECYCLE_ATTRIBUTES,
  lifecycleLabel,
  lifecycleOperation,
  purposesOf,
  recordAttributes,
  recordLifecycle,
} from "./lifecycle/vocabulary.js";
export { claimsRegisteredStatement } from "./receipts/tree-leaf.js";
export { type ChainPeriod, periodLinkLeaf, verifyPeriodChain } from "./tlog/period.js";
export { judgeCheckpoint } from "./verdict/checkpoint.js";
export { keyFingerprint, logKeyFingerprint } from "./verdict/fingerprint.js";
export { witnessGroup } from "./verdict/policy.js";
export { type IssuerKeys, unsignedFields } from "./verdict/record-in-log.js";
export { checkpointStanding } from "./verdict/requirements.js";
export { pinsSomething } from "./verdict/trust.js";
export {
  cannotEvaluate,
  judge,
  type KeyFingerprint,
  USAGE_EXIT_CODE,
  verdictLabel,
} from "./verdict/verdict.js";
export { auditIndex, type IndexAudit, type IndexSource } from "./vindex/audit.js";
export { type IndexRebuild, type RecordSource, rebuildIndex } from "./vindex/rebuild.js";
export { readRecord } from "./vindex/records.js";
export { type FiledRecord, type KeyPlace, type RevisionRoot, replayIndex } from "./vindex/replay.js";
