import type { BreachDeadlines, BreachState } from "./breach.js";
import type { CustodyHop } from "./custody.js";

// The consent and processing report's shapes (report.ts makes it, report-text.ts writes it out).

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

export interface PurposeReport {
  purpose: string;
  state: "granted" | "revoked" | "never_asked";
  decided_by?: string;
  grants: ReportStep[];
  reviews: ReportStep[];
  revocations: ReportStep[];
}

export interface ProcessingReport extends ReportStep {
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

export interface Violation {
  identity: string;
  operation: string;
  purpose?: string;
  reason: string;
}

/**
 * Whether the records the report read are every record of the vCon: complete when the bundle's
 * index lookup proved it and every record it holds was read ("complete as of N log entries").
 */
export interface TrailCompleteness {
  complete: boolean;
  /** "complete as of N log entries of tenant/…", or "not proven complete: <why>". */
  detail: string;
  /** The logs the index lookup covered, each up to its log size. */
  logs: Array<{ log: string; log_size: number }>;
}

export interface ConsentReport {
  subject: string;
  /** Whether it was made from a complete trail (a record left out of one that is not would not be flagged). */
  completeness: TrailCompleteness;
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

/** When the report is made (breach deadlines are judged then) and the deadlines a regulator sets. */
export interface ReportOptions {
  nowMs?: number | undefined;
  /** The tenancy holding the vCon, whose records decide its consent (`tenant/<uuid>`). */
  holder?: string | undefined;
  breachDeadlines?: BreachDeadlines | undefined;
  /** How complete the records given are; not proven complete when unsaid. */
  completeness?: TrailCompleteness | undefined;
}
