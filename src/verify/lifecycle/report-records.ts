import {
  type ConsentRole,
  consentOf,
  consentRole,
  type LifecycleRecord,
  purposesNamed,
} from "../../formats/lifecycle/consent.js";
import {
  LIFECYCLE_ATTRIBUTES,
  lifecycleLabel,
  purposesOf,
  recordAttributes,
} from "../../formats/lifecycle/vocabulary.js";
import { erasableStandings } from "../../formats/record/erasable.js";
import type {
  ConsentReport,
  ProcessingReport,
  PurposeReport,
  ReportStep,
  Violation,
} from "./report-model.js";
import { isVerification, verificationBefore } from "./verification.js";

// The consent report's parts, each read from the records in lifecycle order: the purposes'
// consent, what each record is (processing, a refusal, a verification, an acknowledgement), and
// the erasures. consentReport (report.ts) puts them together.

export const text = (v: unknown) => (typeof v === "string" ? v : "");

/** The report's names for the attributes an acknowledgement, a verification and a refusal record. */
const ACKNOWLEDGEMENT_FIELDS = {
  revocation: LIFECYCLE_ATTRIBUTES.acknowledgedRevocation,
  processor: LIFECYCLE_ATTRIBUTES.acknowledgingProcessor,
};
const VERIFICATION_FIELDS = {
  verified_operation: LIFECYCLE_ATTRIBUTES.verifiedOperation,
  grant: LIFECYCLE_ATTRIBUTES.verifiedGrant,
};
const REFUSAL_FIELDS = {
  refused_operation: LIFECYCLE_ATTRIBUTES.refusedOperation,
  reason: LIFECYCLE_ATTRIBUTES.refusalReason,
};

/** The text of the named attributes of `r`'s record, under the report's names ("" where absent or not text). */
function recorded<K extends string>(r: LifecycleRecord, names: Record<K, string>): Record<K, string> {
  const a = recordAttributes(r.record);
  const entries = Object.entries<string>(names).map(([key, attribute]) => [key, text(a[attribute])]);
  return Object.fromEntries(entries) as Record<K, string>;
}

export function step(r: LifecycleRecord): ReportStep {
  return {
    identity: r.identity,
    operation: r.lifecycle.name,
    label: lifecycleLabel(r.lifecycle),
    known: r.lifecycle.meaning.known,
    at: Number.isNaN(r.acceptedMs) ? "" : new Date(r.acceptedMs).toISOString(),
  };
}

/**
 * Whether a record is processing of the vCon: an operation the vocabulary marks as needing
 * consent, or any other (known or not) that declares a purpose, save consent records and refusals.
 */
function isProcessing(r: LifecycleRecord): boolean {
  const m = r.lifecycle.meaning;
  if (m.known && m.operation.processing) return true;
  if (
    consentRole(r) ||
    isVerification(r) ||
    (m.known && (m.operation.role === "refusal" || m.operation.role === "revocation-acknowledgement"))
  )
    return false;
  return r.lifecycle.purposes.length > 0;
}

/** Each purpose the holder's records name, with its consent and the records that decided it. */
export function purposeReports(
  ordered: LifecycleRecord[],
  own: LifecycleRecord[],
  holder: string,
): PurposeReport[] {
  const byRole = (purpose: string, role: ConsentRole) =>
    consentOf(ordered, purpose, ordered.length, holder)
      .records.filter((r) => r.role === role)
      .map((r) => step(ordered.find((o) => o.identity === r.identity) as LifecycleRecord));
  return purposesNamed(own).map((purpose): PurposeReport => {
    const c = consentOf(ordered, purpose, ordered.length, holder);
    return {
      purpose,
      state: c.state,
      ...(c.decided_by ? { decided_by: c.decided_by } : {}),
      grants: byRole(purpose, "grant"),
      reviews: byRole(purpose, "review"),
      revocations: byRole(purpose, "revocation"),
    };
  });
}

/** What the walk over the records finds, in the records' order. */
export type RecordFindings = Pick<
  ConsentReport,
  "processing" | "violations" | "refusals" | "verifications" | "unverified" | "acknowledgements"
>;

/** Every record read once, in order, each filed under what it is. */
export function recordFindings(ordered: LifecycleRecord[]): RecordFindings {
  const out: RecordFindings = {
    processing: [],
    violations: [],
    refusals: [],
    verifications: [],
    unverified: [],
    acknowledgements: [],
  };
  ordered.forEach((r, i) => {
    const m0 = r.lifecycle.meaning;
    if (m0.known && m0.operation.role === "revocation-acknowledgement") {
      out.acknowledgements.push({ ...step(r), ...recorded(r, ACKNOWLEDGEMENT_FIELDS) });
      return;
    }
    if (isVerification(r)) {
      out.verifications.push({
        ...step(r),
        purposes: r.lifecycle.purposes,
        ...recorded(r, VERIFICATION_FIELDS),
      });
      return;
    }
    if (r.lifecycle.meaning.known && r.lifecycle.meaning.operation.role === "refusal") {
      out.refusals.push({ ...step(r), purposes: r.lifecycle.purposes, ...recorded(r, REFUSAL_FIELDS) });
      return;
    }
    if (!isProcessing(r)) return;
    const judged = judgeProcessing(ordered, r, i);
    out.violations.push(...judged.violations);
    out.unverified.push(...judged.unverified);
    out.processing.push(judged.processing);
  });
  return out;
}

/**
 * One processing record judged: each purpose against the consent in force when it happened (of
 * the tenancy that recorded it), and for training and inference the verification recorded before it.
 */
function judgeProcessing(
  ordered: LifecycleRecord[],
  r: LifecycleRecord,
  i: number,
): { processing: ProcessingReport; violations: Violation[]; unverified: Violation[] } {
  const s = step(r);
  const consent = r.lifecycle.purposes.map((purpose) => {
    // Judged by the consent of the tenancy that recorded it: another's grant allows nothing.
    const c = consentOf(ordered, purpose, i, r.tenant);
    return { purpose, state: c.state, ...(c.decided_by ? { decided_by: c.decided_by } : {}) };
  });
  const found: Violation[] = [];
  if (consent.length === 0)
    found.push({
      identity: s.identity,
      operation: s.operation,
      reason: "processing that names no purpose: no consent can cover it",
    });
  for (const c of consent) {
    if (c.state === "granted") continue;
    found.push({
      identity: s.identity,
      operation: s.operation,
      purpose: c.purpose,
      reason:
        c.state === "revoked"
          ? `processing for ${c.purpose} after consent was revoked (${c.decided_by})`
          : `processing for ${c.purpose} without consent ever granted`,
    });
  }
  const m = r.lifecycle.meaning;
  const verified =
    m.known && m.operation.processing
      ? r.lifecycle.purposes.map((purpose) => {
          const v = verificationBefore(ordered, purpose, i);
          return v ? { purpose, verification: v } : { purpose };
        })
      : [];
  const unverified: Violation[] = verified
    .filter((v) => !v.verification)
    .map((v) => ({
      identity: s.identity,
      operation: s.operation,
      purpose: v.purpose,
      reason: `no consent verification for ${v.purpose} recorded before it`,
    }));
  return {
    processing: {
      ...s,
      purposes: r.lifecycle.purposes,
      consent,
      violations: found.map((v) => v.reason),
      verified,
    },
    violations: found,
    unverified,
  };
}

/** Each erased attribute of the records read, and whether its erasure record is read and names it. */
export function erasuresOf(ordered: LifecycleRecord[]): ConsentReport["erasures"] {
  // Erasure records among those read, and the records each names.
  const erasedBy = new Map<string, Set<string>>();
  for (const r of ordered)
    if (r.lifecycle.meaning.known && r.lifecycle.meaning.operation.role === "erasure")
      erasedBy.set(
        r.identity,
        new Set(purposesOf(recordAttributes(r.record)[LIFECYCLE_ATTRIBUTES.erasedRecords])),
      );
  const erasures: ConsentReport["erasures"] = [];
  for (const r of ordered)
    for (const st of erasableStandings(r.record))
      if (st.state === "erased")
        erasures.push({
          record: r.identity,
          attribute: `${st.map}.${st.name}`,
          by: st.erased.by,
          at: st.erased.at,
          basis: st.erased.basis,
          erasure_record: st.erased.record,
          erasure_proven: erasedBy.get(st.erased.record)?.has(r.identity) ?? false,
        });
  return erasures;
}
