export { type CheckpointJudgement, judgeCheckpoint } from "./checkpoint.js";
export { coseKeyFingerprints, keyFingerprint, logKeyFingerprint } from "./fingerprint.js";
export {
  emptyPolicy,
  PolicyError,
  parsePolicy,
  type Quorum,
  quorumMet,
  type TrustPolicy,
  witnessGroup,
} from "./policy.js";
export {
  type IssuerKeys,
  type RecordInLogReport,
  unsignedFields,
  verifyRecordInLog,
  verifyRecordTlogProofReport,
} from "./record-in-log.js";
export { checkpointStanding } from "./requirements.js";
export { noTrust, pinsSomething, type TrustRoots } from "./trust.js";
export {
  cannotEvaluate,
  EXIT_CODES,
  judge,
  type KeyFingerprint,
  type TrustLevel,
  trustAtLeast,
  USAGE_EXIT_CODE,
  VERDICT_CODES,
  type VerdictCode,
  type VerificationVerdict,
  verdictLabel,
} from "./verdict.js";
