/**
 * Every way a bundle's check fails, one closed set: the step that finds it names it. A tampering
 * (the evidence contradicts itself) or a policy failure (it holds, but not to the caller's roots
 * or requirements); `BundleFailure.kind` says which.
 *
 * @example
 * ```ts
 * const seen = new Set(verifyBundle(bundle, roots).failures.map((f) => f.code));
 * if (seen.has("SEAL_UNSIGNED")) console.error("a seal's signature does not verify");
 * ```
 */
export const BUNDLE_FAILURES = [
  // checkLogs: each seal signed, of its log, and consistent with the latest.
  "SEAL_MALFORMED",
  "SEAL_UNSIGNED",
  "SEAL_SIZE_MISMATCH",
  "SEAL_OF_OTHER_LOG",
  "NO_SEAL",
  "CONSISTENCY_PROOF_MISSING",
  "SEALS_INCONSISTENT",
  // judgeCheckpoints: a bundled checkpoint against the caller's log keys and witnesses.
  "CHECKPOINT_REFUSED",
  "CHECKPOINT_POLICY",
  // checkRecords: each receipt of each record.
  "RECEIPT_INVALID",
  "RECEIPT_OF_OTHER_LOG",
  "RECEIPT_PROFILE_MISMATCH",
  "RECEIPT_NO_TREE_SIZE",
  "RECEIPT_TREE_INCONSISTENT",
  "RECEIPT_LOG_UNVERIFIED",
  "RECEIPT_PEAK_NOT_SEALED",
  "NO_RECEIPT",
  // checkStatement: the statement a registered statement's record carries.
  "STATEMENT_MISSING",
  "STATEMENT_MISMATCH",
  // recordVerdicts: what the signed records say against the bundle.
  "RECORD_OF_OTHER_SUBJECT",
  "ERASABLE_MISMATCH",
  // serviceOf: the receipts' issuer against the bundle's fields.
  "ISSUERS_DIFFER",
  "SERVICE_MISMATCH",
  "ASSET_UNRELATED",
  // checkCompleteness: each index lookup against the log's key, the subject and the records.
  "INDEX_PROOF_INVALID",
  "INDEX_OF_OTHER_SUBJECT",
  "INDEX_OF_OTHER_LOG",
  "INDEX_ENTRY_OMITTED",
  "INDEX_ENTRY_MISMATCH",
  "INDEX_OMITS_RECORD",
  "INDEX_NOT_PINNED",
  // pinning and requirements: the caller's roots and policy.
  "SEALS_NOT_PINNED",
  "RECEIPTS_NOT_PINNED",
  "TOO_FEW_RECEIPTS",
  "ISSUER_NOT_ACCEPTED",
  "SEAL_TOO_OLD",
  "NOT_WITNESSED",
  "NOT_PINNED",
  "NOT_PROVEN_COMPLETE",
] as const;
/**
 * @example
 * ```ts
 * const tampered = (r: BundleReport): BundleFailureCode[] => r.failures.filter((f) => f.kind === "tampered").map((f) => f.code);
 * ```
 */
export type BundleFailureCode = (typeof BUNDLE_FAILURES)[number];

/** One failure the check found: its code, what it is about, and the words the verdict shows. */
export interface BundleFailure {
  code: BundleFailureCode;
  kind: "tampered" | "policy";
  /** The verdict's line for it (the verdict's `reasons` hold the same words). */
  detail: string;
}

/** The failures found so far, in the order found. */
export class Findings {
  readonly all: BundleFailure[] = [];
  tampered(code: BundleFailureCode, detail: string): void {
    this.all.push({ code, kind: "tampered", detail });
  }
  policy(code: BundleFailureCode, detail: string): void {
    this.all.push({ code, kind: "policy", detail });
  }
  details(kind: BundleFailure["kind"]): string[] {
    return this.all.filter((f) => f.kind === kind).map((f) => f.detail);
  }
}
