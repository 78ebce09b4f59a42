import { lifecycleLabel, recordLifecycle } from "../formats/lifecycle/vocabulary.js";
import type { PublicRecord } from "../lookup/public-api.js";

/** What kind of record a trail step is. */
type RecordKind = "asset event" | "asset-free event" | "registered statement";

/**
 * What a record says, read the same way whatever its kind: an asset event carries
 * `event_attributes`, `operation`, `timestamp_accepted` and `principal_accepted`; an asset-free
 * event (a registered statement among them) `attributes`, `event_type`, `created_at` and
 * `created_by`.
 */
export interface RecordFacts {
  identity: string;
  kind: RecordKind;
  /** The vCon operation, the display type, or the operation, whichever it names first. */
  title: string;
  operation: string;
  /** What its operation is in the vCon lifecycle, in words (an unknown one is said to be). */
  lifecycle: string;
  /** False for an operation the lifecycle vocabulary does not hold (the set is open). */
  lifecycleKnown: boolean;
  attributes: Record<string, unknown>;
  payload: { hash: string; algorithm: string } | undefined;
  /** The payload's form: its content type and the vCon draft it follows, when it says. */
  form: string;
  subject: string;
  declared: string;
  accepted: string;
  /** Whom the service accepted the record from, as it authenticated them. */
  acceptedFrom: string;
  status: string;
  /** The record's position in its log, for ordering (MAX_SAFE_INTEGER when not committed yet). */
  logIndex: number;
}

const text = (v: unknown) => (typeof v === "string" ? v : "");

function principal(p: unknown): string {
  const o = (p ?? {}) as Record<string, unknown>;
  const name = text(o.display_name) || text(o.email);
  const subject = text(o.subject);
  if (name && subject && name !== subject) return `${name} (${subject})`;
  return name || subject || text(o.issuer);
}

function logIndexOf(r: PublicRecord): number {
  const entry = r.merklelog_entry as { commit?: { index?: string } } | undefined;
  const commit = r.merklelog_commit as { index?: string; idtimestamp?: string } | undefined;
  const index = entry?.commit?.index ?? (commit?.idtimestamp ? commit.index : undefined);
  return index === undefined ? Number.MAX_SAFE_INTEGER : Number(index);
}

/** The facts of a record as the API returns it. */
export function recordFacts(r: PublicRecord): RecordFacts {
  const identity = text(r.identity);
  const free = identity.startsWith("events/");
  const attributes = ((free ? r.attributes : r.event_attributes) ?? {}) as Record<string, unknown>;
  const operation = free ? text(r.event_type) : text(r.operation);
  const contentType = text(attributes.payload_preimage_content_type);
  const draft = text(attributes.vcon_draft_version);
  const created = Number(r.created_at);
  const lifecycle = recordLifecycle(r);
  return {
    identity,
    kind: !free ? "asset event" : attributes.scitt_issuer ? "registered statement" : "asset-free event",
    title: text(attributes.vcon_operation) || text(attributes.arc_display_type) || operation || "event",
    operation,
    lifecycle: lifecycleLabel(lifecycle),
    lifecycleKnown: lifecycle.meaning.known,
    attributes,
    payload: text(attributes.payload)
      ? { hash: text(attributes.payload), algorithm: text(attributes.payload_hash_alg) || "(not named)" }
      : undefined,
    form: [contentType, draft ? `vCon draft ${draft}` : ""].filter(Boolean).join(", "),
    subject: text(attributes.subject),
    declared: text(attributes.timestamp_declared) || text(r.timestamp_declared),
    accepted: free
      ? Number.isFinite(created) && created > 0
        ? new Date(created).toISOString()
        : ""
      : text(r.timestamp_accepted),
    acceptedFrom: free ? text(r.created_by) : principal(r.principal_accepted),
    status: text(r.confirmation_status),
    logIndex: logIndexOf(r),
  };
}
