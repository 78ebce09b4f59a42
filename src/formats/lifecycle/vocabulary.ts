/**
 * The vCon lifecycle's operations as data: every event the lifecycle draft's editor's copy
 * ("vCon Lifecycle Management using Transparency Services", draft-howe-vcon-lifecycle after -01,
 * howethomas/vcon-howe-scitt-lifecycle) names, and the few this service adds where the draft asks
 * for a record but names no operation. The link plugins, the template builder, the console, the
 * verifier and the consent derivation all read it from here. The set is open: an operation not
 * listed is still recorded, and shown as an unknown lifecycle operation.
 */

import { signedAttributes } from "../record/api-record.js";

/** What an operation means to the consent and processing derivations. */
export type LifecycleRole =
  | "creation"
  | "amendment"
  | "transfer-sent"
  | "transfer-received"
  | "consent-grant"
  | "consent-review"
  | "consent-revocation"
  | "consent-verification"
  | "revocation-acknowledgement"
  | "redaction"
  | "deletion"
  | "erasure"
  | "breach"
  | "processing"
  | "model"
  | "refusal";

/** The draft's sections, and ours. */
type LifecyclePhase =
  | "creation and distribution"
  | "consent"
  | "redaction and deletion"
  | "breach response"
  | "AI training and processing"
  | "this service";

export interface LifecycleOperation {
  /** The operation name as recorded (`vcon_operation`, `arc_display_type`, `arc_event_type`). */
  name: string;
  /** A short label for people. */
  title: string;
  phase: LifecyclePhase;
  role: LifecycleRole;
  /** Recorded per purpose: a consent grant, review or revocation, or processing under a purpose. */
  perPurpose: boolean;
  /** Processing of the vCon that needs active consent for its purpose (the draft's "MUST cease"). */
  processing: boolean;
  /** Who names it: the lifecycle draft, or this service (where the draft names none). */
  source: "draft-howe-vcon-lifecycle" | "vcon-archivist";
}

type Row = [name: string, title: string, phase: LifecyclePhase, role: LifecycleRole, flags?: string];

// flags: p = per purpose, x = processing that needs consent, o = named by this service.
const ROWS: Row[] = [
  ["vcon_created", "vCon created", "creation and distribution", "creation"],
  ["vcon_enhanced", "vCon amended or appended", "creation and distribution", "amendment"],
  ["vcon_sent", "vCon sent to another party", "creation and distribution", "transfer-sent"],
  ["vcon_received", "vCon received from another party", "creation and distribution", "transfer-received"],
  ["vcon_consent_accepted", "consent granted", "consent", "consent-grant", "p"],
  ["vcon_consent_reviewed", "consent reviewed", "consent", "consent-review", "po"],
  ["vcon_consent_revoked", "consent revoked", "consent", "consent-revocation", "p"],
  ["vcon_consent_verified", "consent verified before processing", "consent", "consent-verification", "po"],
  ["vcon_party_redacted", "party redacted", "redaction and deletion", "redaction"],
  ["vcon_deleted", "vCon deleted", "redaction and deletion", "deletion"],
  ["vcon_expired", "vCon expired", "redaction and deletion", "deletion"],
  ["vcon_rcvr_purged", "vCon purged by its receiver", "redaction and deletion", "deletion"],
  ["vcon_breach_detected", "breach detected", "breach response", "breach"],
  ["vcon_breach_investigated", "breach investigated", "breach response", "breach"],
  ["vcon_subject_notified", "data subject notified of a breach", "breach response", "breach"],
  ["vcon_regulator_notified", "regulator notified of a breach", "breach response", "breach"],
  ["vcon_remediated", "breach remediated", "breach response", "breach"],
  ["vcon_training_prepared", "prepared for AI training", "AI training and processing", "processing", "px"],
  [
    "vcon_model_training_initiated",
    "AI model training initiated",
    "AI training and processing",
    "processing",
    "px",
  ],
  ["vcon_model_training_completed", "AI model training completed", "AI training and processing", "model"],
  ["vcon_model_validated", "AI model validated", "AI training and processing", "model"],
  ["vcon_model_deployed", "AI model deployed", "AI training and processing", "model"],
  ["vcon_inference_performed", "AI inference performed", "AI training and processing", "processing", "px"],
  [
    "vcon_revocation_acknowledged",
    "revocation acknowledged by a processor",
    "consent",
    "revocation-acknowledgement",
    "o",
  ],
  ["vcon_attributes_erased", "personal data erased", "this service", "erasure", "o"],
  ["vcon_processing_refused", "processing refused for want of consent", "this service", "refusal", "po"],
];

/** Every operation this service knows, in the draft's order, then its own. */
export const LIFECYCLE_OPERATIONS: readonly LifecycleOperation[] = ROWS.map(
  ([name, title, phase, role, flags = ""]) => ({
    name,
    title,
    phase,
    role,
    perPurpose: flags.includes("p"),
    processing: flags.includes("x"),
    source: flags.includes("o") ? "vcon-archivist" : "draft-howe-vcon-lifecycle",
  }),
);

const BY_NAME = new Map(LIFECYCLE_OPERATIONS.map((o) => [o.name, o]));

/** The event attributes the lifecycle reads beside the operation name (ours; the draft names none). */
export const LIFECYCLE_ATTRIBUTES = {
  /** The purpose (or purposes: a list, or comma-separated) a consent event or a processing is for. */
  purpose: "consent_purpose",
  /** A transfer's identifier, the same on the sender's `vcon_sent` and the receiver's `vcon_received`. */
  transferId: "transfer_id",
  /** The other party of a transfer (a service URL, a tenancy, a name). */
  transferPeer: "transfer_peer",
  /** The other party's record of the transfer, as its API returned it (JSON text). */
  peerRecord: "transfer_peer_record",
  /** The other party's COSE receipt of that record (base64). */
  peerReceipt: "transfer_peer_receipt",
  /** The other party's COSE key set, as it serves it (base64), so the receipt can be checked offline. */
  peerKeys: "transfer_peer_keys",
  /** On a refusal: the operation refused and why. */
  refusedOperation: "refused_operation",
  refusalReason: "refusal_reason",
  /** On a consent verification: the operation it lets through and the grant it found in force. */
  verifiedOperation: "verified_operation",
  verifiedGrant: "verified_grant",
  /** On a revocation's acknowledgement: the revocation, and the processor that acknowledged it. */
  acknowledgedRevocation: "acknowledged_revocation",
  acknowledgingProcessor: "acknowledging_processor",
  acknowledgingProcessorId: "acknowledging_processor_id",
  /** On a breach event: which breach it is about (records naming none are read as one breach). */
  breachId: "breach_id",
  /** On an erasure: the records and attributes erased, and the legal basis. */
  erasedRecords: "erased_records",
  erasedAttributes: "erased_attributes",
  erasureBasis: "erasure_basis",
} as const;

/** What a recorded operation name means: a known operation (and the purpose its name carries), or not. */
export type OperationMeaning =
  | { known: true; operation: LifecycleOperation; purpose?: string }
  | { known: false; name: string };

/** The words shown for an operation the vocabulary does not hold: the set is open, it is recorded. */
const UNKNOWN_OPERATION = "unknown lifecycle operation";

/**
 * What an operation name means. A per-purpose operation may carry its purpose after a dot
 * (`vcon_consent_revoked.ai_training`): the form a link that takes only an operation name from
 * its config (vcon-server's `datatrails` link) can record per purpose.
 */
export function lifecycleOperation(name: string): OperationMeaning {
  // Names are read without regard to case (`VCON_CONSENT_REVOKED.Analysis` is a revocation for
  // analysis): read as written, a revocation in capitals was silently nothing (issue 60).
  const folded = name.toLowerCase();
  const exact = BY_NAME.get(folded);
  if (exact) return { known: true, operation: exact };
  const dot = folded.indexOf(".");
  if (dot > 0) {
    const base = BY_NAME.get(folded.slice(0, dot));
    const purpose = folded.slice(dot + 1);
    if (base?.perPurpose && purpose) return { known: true, operation: base, purpose };
  }
  return { known: false, name };
}

const text = (v: unknown) => (typeof v === "string" ? v : "");

/** A record's signed attributes, whichever kind it is (asset event or asset-free event). */
export function recordAttributes(record: Record<string, unknown>): Record<string, unknown> {
  return signedAttributes(record) ?? {};
}

/**
 * The lifecycle operation a record names: the template's `vcon_operation`, else vcon-server's
 * `arc_event_type`, else `arc_display_type`; "" when it names none.
 */
function recordOperationName(record: Record<string, unknown>): string {
  const a = recordAttributes(record);
  return text(a.vcon_operation) || text(a.arc_event_type) || text(a.arc_display_type);
}

/**
 * Purposes as an attribute holds them: one string, a comma-separated string, or a list of
 * strings; in lower case (`Analysis` is `analysis`, as operation names are read).
 */
export function purposesOf(value: unknown): string[] {
  const items = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [];
  return [
    ...new Set(items.filter((p): p is string => typeof p === "string").map((p) => p.trim().toLowerCase())),
  ].filter(Boolean);
}

/** What a record means to the lifecycle: its operation's meaning and the purposes it is for. */
export interface RecordLifecycle {
  name: string;
  meaning: OperationMeaning;
  purposes: string[];
}

/** Reads a record as a lifecycle event: its operation, and its purposes (attribute, else the name's). */
export function recordLifecycle(record: Record<string, unknown>): RecordLifecycle {
  const name = recordOperationName(record);
  const meaning = lifecycleOperation(name);
  const declared = purposesOf(recordAttributes(record)[LIFECYCLE_ATTRIBUTES.purpose]);
  const purposes = declared.length ? declared : meaning.known && meaning.purpose ? [meaning.purpose] : [];
  return { name, meaning, purposes };
}

/** How a record's operation reads to people: its title and phase, or that it is not in the vocabulary. */
export function lifecycleLabel(l: RecordLifecycle): string {
  if (!l.name) return "no lifecycle operation";
  if (!l.meaning.known) return `${UNKNOWN_OPERATION} (${l.name})`;
  const purposes = l.purposes.length ? ` for ${l.purposes.join(", ")}` : "";
  return `${l.meaning.operation.title}${purposes} (${l.meaning.operation.phase})`;
}
