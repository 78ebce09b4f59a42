/**
 * The consent and processing report of one vCon: for each purpose its grants, reviews and
 * revocations; every processing event, and each one that came after a revocation or without a
 * grant flagged as a violation. It is a function of the records alone, so it is made from an
 * evidence bundle after the bundle is verified, from the records whose receipts verified and
 * nothing else: whoever holds the bundle and the service's keys makes the same report offline
 * (the CLI, /verify, the console).
 */

import { erasableStandings } from "../../formats/record/erasable.js";
import { type BreachDeadlines, type BreachState, breachStates, DEFAULT_BREACH_DEADLINES } from "./breach.js";
import {
  type ConsentRole,
  consentHolder,
  consentOf,
  consentRole,
  type LifecycleRecord,
  lifecycleOrder,
  purposesNamed,
} from "./consent.js";
import { type CustodyHop, type CustodyKeys, custodyHops } from "./custody.js";
import { isVerification, verificationBefore } from "./verification.js";
import { LIFECYCLE_ATTRIBUTES, lifecycleLabel, purposesOf, recordAttributes } from "./vocabulary.js";

/** One record as the report shows it. */
export interface ReportStep {
  identity: string;
  /** The operation as recorded. */
  operation: string;
  /** What it is in the lifecycle, in words ("unknown lifecycle operation (…)" when not in the vocabulary). */
  label: string;
  known: boolean;
  /** When the service accepted it (RFC 3339; signed in an asset event's leaf), "" when the record does not say. */
  at: string;
}

interface PurposeReport {
  purpose: string;
  state: "granted" | "revoked" | "never_asked";
  decided_by?: string;
  grants: ReportStep[];
  reviews: ReportStep[];
  revocations: ReportStep[];
}

interface ProcessingReport extends ReportStep {
  purposes: string[];
  /** Each purpose's consent when it happened. */
  consent: Array<{ purpose: string; state: "granted" | "revoked" | "never_asked"; decided_by?: string }>;
  /** Why it is a violation (empty: none). */
  violations: string[];
  /**
   * Training and inference (the vocabulary's processing): per purpose, the consent verification
   * recorded before it under the grant then in force, or none. Other processing: [].
   */
  verified: Array<{ purpose: string; verification?: string }>;
}

interface Violation {
  identity: string;
  operation: string;
  purpose?: string;
  reason: string;
}

export interface ConsentReport {
  subject: string;
  /**
   * The tenancy whose records decide the purposes' consent (`tenant/<uuid>`): the one the bundle
   * was exported for, else the tenancy of the first record read.
   */
  holder: string;
  /**
   * Consent records of other tenancies (shared with the holder): shown, and deciding nothing
   * for the holder; each processing is judged by its own tenancy's records.
   */
  foreign_consent: Array<ReportStep & { tenant: string; purposes: string[] }>;
  /** How many records the report read: those proven in the log. */
  read: number;
  /** Records it did not read, and why (their receipts did not verify, or they had none). */
  left_out: Array<{ identity: string; reason: string }>;
  purposes: PurposeReport[];
  /** Grants that name no purpose: they grant none. */
  unscoped_grants: ReportStep[];
  processing: ProcessingReport[];
  /** Processing the consent gate refused (`vcon_processing_refused`). */
  refusals: Array<ReportStep & { purposes: string[]; refused_operation: string; reason: string }>;
  violations: Violation[];
  /** Consent verifications recorded (`vcon_consent_verified`): the purpose and the operation each let through. */
  verifications: Array<ReportStep & { purposes: string[]; verified_operation: string; grant: string }>;
  /** Training or inference with no consent verification recorded before it (a finding beside the violations). */
  unverified: Violation[];
  /** Processors' acknowledgements of revocations (`vcon_revocation_acknowledged`), as recorded. */
  acknowledgements: Array<ReportStep & { revocation: string; processor: string }>;
  /**
   * Each erased attribute of the records read: who erased it, when, under which basis (the
   * service's word), and whether its erasure record is itself among the records read and names it.
   */
  erasures: Array<{
    record: string;
    attribute: string;
    by: string;
    at: string;
    basis: string;
    erasure_record: string;
    erasure_proven: boolean;
  }>;
  /** Each breach the records tell of, its steps and the regulator's deadlines judged when the report was made. */
  breaches: BreachState[];
  /** When the breach deadlines were judged (RFC 3339), and the deadlines used. */
  judged_at: string;
  breach_deadlines: BreachDeadlines;
  /** The vCon's transfers (`vcon_sent`, `vcon_received`), each with the other party's proof checked. */
  custody: CustodyHop[];
  /** Every record read, in the order the derivation reads them. */
  timeline: ReportStep[];
}

const text = (v: unknown) => (typeof v === "string" ? v : "");

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

function step(r: LifecycleRecord): ReportStep {
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

/** When the report is made (breach deadlines are judged then) and the deadlines a regulator sets. */
export interface ReportOptions {
  nowMs?: number | undefined;
  /** The tenancy holding the vCon, whose records decide its consent (`tenant/<uuid>`). */
  holder?: string | undefined;
  breachDeadlines?: BreachDeadlines | undefined;
}

/**
 * The report of `subject` from its proven records (`proven`, as the API returns them) and the
 * records left out of it with the reason. Pure: the same records make the same report anywhere.
 */
export function consentReport(
  subject: string,
  proven: ReadonlyArray<Record<string, unknown>>,
  leftOut: Array<{ identity: string; reason: string }> = [],
  keys: CustodyKeys = {},
  opts: ReportOptions = {},
): ConsentReport {
  const nowMs = opts.nowMs ?? Date.now();
  const deadlines = opts.breachDeadlines ?? DEFAULT_BREACH_DEADLINES;
  const ordered = lifecycleOrder(proven);
  const holder = consentHolder(ordered, opts.holder);
  const own = ordered.filter((r) => r.tenant === holder);
  const byRole = (purpose: string, role: ConsentRole) =>
    consentOf(ordered, purpose, ordered.length, holder)
      .records.filter((r) => r.role === role)
      .map((r) => step(ordered.find((o) => o.identity === r.identity) as LifecycleRecord));
  const purposes = purposesNamed(own).map((purpose): PurposeReport => {
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
  const processing: ProcessingReport[] = [];
  const violations: Violation[] = [];
  const refusals: ConsentReport["refusals"] = [];
  const verifications: ConsentReport["verifications"] = [];
  const unverified: Violation[] = [];
  const acknowledgements: ConsentReport["acknowledgements"] = [];
  ordered.forEach((r, i) => {
    const m0 = r.lifecycle.meaning;
    if (m0.known && m0.operation.role === "revocation-acknowledgement") {
      acknowledgements.push({ ...step(r), ...recorded(r, ACKNOWLEDGEMENT_FIELDS) });
      return;
    }
    if (isVerification(r)) {
      verifications.push({ ...step(r), purposes: r.lifecycle.purposes, ...recorded(r, VERIFICATION_FIELDS) });
      return;
    }
    if (r.lifecycle.meaning.known && r.lifecycle.meaning.operation.role === "refusal") {
      refusals.push({ ...step(r), purposes: r.lifecycle.purposes, ...recorded(r, REFUSAL_FIELDS) });
      return;
    }
    if (!isProcessing(r)) return;
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
    violations.push(...found);
    const m = r.lifecycle.meaning;
    const verified =
      m.known && m.operation.processing
        ? r.lifecycle.purposes.map((purpose) => {
            const v = verificationBefore(ordered, purpose, i);
            return v ? { purpose, verification: v } : { purpose };
          })
        : [];
    for (const v of verified)
      if (!v.verification)
        unverified.push({
          identity: s.identity,
          operation: s.operation,
          purpose: v.purpose,
          reason: `no consent verification for ${v.purpose} recorded before it`,
        });
    processing.push({
      ...s,
      purposes: r.lifecycle.purposes,
      consent,
      violations: found.map((v) => v.reason),
      verified,
    });
  });
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
  return {
    subject,
    holder,
    foreign_consent: ordered
      .filter((r) => r.tenant !== holder && consentRole(r))
      .map((r) => ({ ...step(r), tenant: r.tenant, purposes: r.lifecycle.purposes })),
    read: ordered.length,
    left_out: leftOut,
    purposes,
    unscoped_grants: own
      .filter((r) => consentRole(r) === "grant" && r.lifecycle.purposes.length === 0)
      .map(step),
    processing,
    refusals,
    violations,
    verifications,
    unverified,
    acknowledgements,
    erasures,
    breaches: breachStates(ordered, nowMs, deadlines),
    judged_at: new Date(nowMs).toISOString(),
    breach_deadlines: deadlines,
    custody: custodyHops(ordered, keys),
    timeline: ordered.map(step),
  };
}

/** The report as lines for people (the CLI's text output). */
export function consentReportText(r: ConsentReport): string[] {
  const lines = [
    `consent and processing of ${r.subject}: ${r.read} proven record(s); consent decided by the records of ${r.holder || "(no tenancy named)"}`,
  ];
  for (const l of r.left_out) lines.push(`  left out ${l.identity}: ${l.reason}`);
  for (const p of r.purposes) {
    lines.push(
      `  purpose ${p.purpose}: ${p.state.replace("_", " ")}${p.decided_by ? ` (decided by ${p.decided_by})` : ""}`,
    );
    for (const [word, steps] of [
      ["granted", p.grants],
      ["reviewed", p.reviews],
      ["revoked", p.revocations],
    ] as const)
      for (const s of steps) lines.push(`    ${word} ${s.at} ${s.identity}`);
  }
  for (const g of r.unscoped_grants) lines.push(`  grant naming no purpose (grants none): ${g.identity}`);
  for (const f of r.foreign_consent)
    lines.push(
      `  consent record of another tenancy (${f.tenant || "not named"}), deciding nothing for ${r.holder}: ${f.label} ${f.at} ${f.identity}`,
    );
  for (const p of r.processing) {
    const unverified = p.verified.filter((v) => !v.verification).map((v) => v.purpose);
    const verified = p.verified.filter((v) => v.verification).map((v) => `${v.purpose} by ${v.verification}`);
    lines.push(
      `  processing ${p.at} ${p.label} ${p.identity}: ${p.violations.length ? `VIOLATION: ${p.violations.join("; ")}` : "within consent"}${unverified.length ? `; UNVERIFIED: no consent verification recorded before it for ${unverified.join(", ")}` : ""}${verified.length ? `; consent verified for ${verified.join(", ")}` : ""}`,
    );
  }
  for (const a of r.acknowledgements)
    lines.push(
      `  acknowledged ${a.at} revocation ${a.revocation || "(not named)"} by processor ${a.processor || "(not named)"} (${a.identity})`,
    );
  for (const v of r.verifications)
    lines.push(
      `  verified ${v.at} consent for ${v.purposes.join(", ")} before ${v.verified_operation || "(operation not named)"} under grant ${v.grant || "(not named)"} (${v.identity})`,
    );
  for (const e of r.erasures)
    lines.push(
      `  erased ${e.attribute} of ${e.record}: by ${e.by} at ${e.at} under ${e.basis} (erasure record ${e.erasure_record}, ${e.erasure_proven ? "proven in the log" : "not among the records read"})`,
    );
  for (const h of r.custody) {
    const p = h.proof;
    const proof =
      p.state === "none"
        ? "carries no proof of the other party"
        : p.state === "failed"
          ? `the other party's proof FAILED: ${p.reason}`
          : `proven by the other party's ${p.operation} ${p.record} (receipt by ${p.issuer}, ${p.keys === "pinned" ? "under keys you pinned" : `under the keys it carries, ${p.fingerprints.join(", ")}: compare them`})`;
    lines.push(
      `  custody ${h.at} ${h.direction} ${h.direction === "sent" ? "to" : "from"} ${h.peer || "(peer not named)"} (transfer ${h.transfer_id || "not named"}) ${h.identity}: ${proof}`,
    );
  }
  for (const f of r.refusals)
    lines.push(
      `  refused ${f.at} ${f.refused_operation || "(operation not named)"}: ${f.reason} (${f.identity})`,
    );
  for (const b of r.breaches) {
    const detected = b.steps.detected;
    lines.push(
      `  breach ${b.breach || "(not named)"}: ${b.stage.replace("_", " ")}${detected ? `, detected ${detected.at} (${detected.identity})` : ""}`,
    );
    for (const step of ["investigated", "subject_notified", "regulator_notified", "remediated"] as const) {
      const s = b.steps[step];
      if (s) lines.push(`    ${step.replace("_", " ")} ${s.at} (${s.identity})`);
    }
    for (const d of b.deadlines)
      lines.push(`    ${d.state === "missed" ? "MISSED" : d.state === "met" ? "met" : "open"}: ${d.detail}`);
    for (const f of b.findings) if (!f.startsWith("DEADLINE MISSED")) lines.push(`    ${f}`);
  }
  lines.push(
    r.violations.length
      ? `${r.violations.length} VIOLATION(S) of consent among ${r.processing.length} processing event(s)`
      : `no violation of consent among ${r.processing.length} processing event(s)`,
  );
  const missed = r.breaches.flatMap((b) => b.deadlines.filter((d) => d.state === "missed"));
  if (r.breaches.length)
    lines.push(
      missed.length
        ? `${missed.length} breach notification deadline(s) MISSED (judged at ${r.judged_at})`
        : `no breach notification deadline missed (judged at ${r.judged_at})`,
    );
  if (r.unverified.length)
    lines.push(
      `${r.unverified.length} training or inference purpose(s) processed WITHOUT a recorded consent verification`,
    );
  return lines;
}

/** What `verifyBundle` said of each record, in the bundle's order (`BundleReport.records`). */
interface CheckedRecord {
  identity: string;
  ok: boolean;
  receipts: Array<{ ok: boolean; detail: string }>;
}

/**
 * The report of a verified evidence bundle: made of the records whose receipts verified (and
 * that are of the bundle's subject), the others listed as left out. Verify first (`verifyBundle`,
 * with your trust roots): the report is only as good as the verdict it is read with.
 *
 * @example
 * ```ts
 * const report = verifyBundle(bundle, roots);
 * if (report.code === "verified") console.log(bundleConsentReport(bundle, report));
 * ```
 */
export function bundleConsentReport(
  bundle: { subject: { id: string; holder?: string }; records: Array<{ record: Record<string, unknown> }> },
  checked: { records: CheckedRecord[] },
  keys: CustodyKeys = {},
  opts: ReportOptions = {},
): ConsentReport {
  const proven: Array<Record<string, unknown>> = [];
  const leftOut: Array<{ identity: string; reason: string }> = [];
  bundle.records.forEach(({ record }, i) => {
    const c = checked.records[i];
    if (c?.ok) proven.push(record);
    else
      leftOut.push({
        identity: text(record.identity),
        reason: c
          ? (c.receipts.find((r) => !r.ok)?.detail ??
            (c.receipts.length ? "not of the bundle's subject" : "no receipt"))
          : "not checked",
      });
  });
  return consentReport(bundle.subject.id, proven, leftOut, keys, {
    ...opts,
    holder: opts.holder ?? (typeof bundle.subject.holder === "string" ? bundle.subject.holder : undefined),
  });
}
