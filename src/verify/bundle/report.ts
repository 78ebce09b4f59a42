import type { TrustLevel, VerificationVerdict } from "../verdict/index.js";
import type { BundleFailure, BundleFailureCode } from "./failures.js";

// What a bundle's verdict shows, per receipt, record and log: the report's shapes, apart from the
// steps that fill them.

export interface ReceiptCheck {
  profile: string;
  ok: boolean;
  detail: string;
  /** Why it failed (a failed receipt only). */
  failure?: BundleFailureCode;
  /** The issuer the receipt's signed headers name (a valid receipt only). */
  issuer?: string;
}

/** The check of one record: each receipt's outcome, whether one known receipt proved it, and how far. */
export interface RecordCheck {
  identity: string;
  ok: boolean;
  /** How far this record's inclusion is anchored outside the bundle. */
  trust: TrustLevel;
  /** The record's `confirmation_status` as the service stated it: no signature covers it. */
  claimed_confirmation_status: string;
  receipts: ReceiptCheck[];
  /** A registered statement's record: the statement it carries, held against it (its digest, its headers). */
  statement?: { ok: boolean; detail: string };
  /**
   * Its erasable attributes (committed by a salted hash): each disclosed value checked against
   * its commitment, each erased one as the service says (by whom, when, under which basis, and
   * the erasure's own record). Absent when it commits none.
   */
  erasable?: Array<{ attribute: string; state: "disclosed" | "erased" | "withheld"; detail: string }>;
}

export interface LogCheck {
  log: string;
  profile: string;
  ok: boolean;
  latest_size: number;
  /** The latest seal's time, RFC 3339 (signed, in the seal). */
  latest_time: string;
  seals: number;
  detail: string;
  /** The log's checkpoint as judged against the caller's roots, when the bundle carries one. */
  checkpoint?: {
    size: number;
    pinned: boolean;
    witnessed: boolean;
    cosigners: string[];
    cosignature_lines: number;
  };
}

/** One log whose entries filed under the subject's key an index lookup proved. */
export interface ProvenLog {
  log: string;
  /** The lookup covers the log's first `log_size` entries; later ones are not covered. */
  log_size: number;
  /** The index revision (its output log's entry) the lookup was made at. */
  revision: number;
  /** How many entries the key has below `log_size` (0: the lookup proved its absence). */
  entries: number;
  /** Whether the lookup verified under a log key you pinned (else only under the bundle's own). */
  log_key_pinned: boolean;
}

/**
 * Whether the bundle holds every record of its subject: `complete` when an index lookup of the
 * subject's key verified for each log of the bundle's records and every entry it lists is in the
 * bundle ("complete as of N log entries"); otherwise why not. `pinned`: every lookup verified under
 * a log key you pinned (a lookup under the bundle's own log key alone is only self-consistent).
 */
export type Completeness = (
  | { complete: true; key: string; pinned: boolean }
  | { complete: false; reason: string }
) & {
  logs: ProvenLog[];
  /** In words: "complete as of N log entries of tenant/…", or "not proven complete: <why>". */
  detail: string;
};

/** The verdict on a bundle: the shared verdict object, with what each record and log showed. */
export interface BundleReport extends VerificationVerdict {
  /** Each failure with its code, in the order the steps found them. */
  failures: BundleFailure[];
  /** The subject every record was checked to be of. */
  subject: string;
  /** The receipts' issuer (signed); the bundle's `service` field must name it. */
  service: string;
  /** When the bundle says it was exported (unsigned). */
  created_at: string;
  records: RecordCheck[];
  logs: LogCheck[];
  /** Whether the bundle is proven to hold every record of its subject (its `index`). */
  completeness: Completeness;
}
