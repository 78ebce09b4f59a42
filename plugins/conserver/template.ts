import { LIFECYCLE_ATTRIBUTES, lifecycleOperation } from "../../src/formats/lifecycle/vocabulary.js";
import { ConserverError } from "./errors.js";
import { normaliseOperation } from "./operation.js";
import type { VconDocument } from "./vcon.js";
import { type HashMode, hashVcon, requireVconUuid, vconUpdatedAt } from "./vcon.js";

export const TEMPLATE_VERSION = "0.3.0";

/**
 * What to declare when a vCon has neither `updated_at` nor `created_at` (the IETF examples, the
 * encrypted form). `now` (default): the time the link saw the completed operation, the closest
 * truthful value to a required attribute; `omit`: leave `timestamp_declared` out (the event then
 * misses a required template attribute); `reject`: fail the link (the vCon goes to the DLQ).
 * The Python link sends null, which the archivist API refuses.
 */
export type TimestampFallback = "now" | "omit" | "reject";

/** Link settings that shape the event. */
export interface TemplateConfig {
  /** `conserver_link`: the link type (`archivist`, `scitt`). */
  link: string;
  /** `conserver_link_name`: the link's name in the conserver config. */
  linkName: string;
  hashMode: HashMode;
  preimageContentType?: string;
  vconDraftVersion?: string;
  scittDraftVersion?: string;
  timestampFallback?: TimestampFallback;
  /**
   * The purposes a consent event or a processing is for (`consent_purpose`, comma-separated):
   * the lifecycle draft records consent per purpose.
   */
  purposes?: string[];
  /**
   * Copy each party's `tel`, `name` and `mailto` into `party_<i>_<field>` attributes: the
   * subject's personal data, for a tenancy whose erasure policy makes them erasable (then they are
   * committed by a salted hash, and can be erased without breaking a receipt).
   */
  partyAttributes?: boolean;
  /** Extra event attributes; they never replace a template attribute. */
  extraAttributes?: Record<string, string>;
  now?: () => Date;
}

/** A template-0.3.0 asset event body. */
export interface VconEventBody {
  operation: "Record";
  behaviour: "RecordEvidence";
  event_attributes: Record<string, string>;
  timestamp_declared?: string;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function declaredTime(doc: VconDocument, cfg: TemplateConfig): string | undefined {
  const stored = vconUpdatedAt(doc);
  if (stored !== undefined) return stored;
  const fallback = cfg.timestampFallback ?? "now";
  if (fallback === "reject")
    throw new ConserverError("VCON_NO_TIMESTAMP", "vCon has neither updated_at nor created_at");
  return fallback === "now" ? (cfg.now?.() ?? new Date()).toISOString() : undefined;
}

const PARTY_FIELDS = ["tel", "name", "mailto"] as const;

/** `party_<i>_<field>` of each party's text fields (none for an encrypted vCon, whose parties are hidden). */
function partyAttributes(doc: VconDocument): Record<string, string> {
  const parties = doc.unsigned?.parties;
  const out: Record<string, string> = {};
  if (!Array.isArray(parties)) return out;
  parties.forEach((p, i) => {
    if (typeof p !== "object" || p === null) return;
    for (const f of PARTY_FIELDS) {
      const v = (p as Record<string, unknown>)[f];
      if (typeof v === "string" && v !== "") out[`party_${i}_${f}`] = v;
    }
  });
  return out;
}

/**
 * Whether the vocabulary knows an operation (`src/core/lifecycle`); an unknown one is still
 * recorded (the set is open), and the caller may say so.
 */
export function isKnownOperation(operation: string): boolean {
  return lifecycleOperation(normaliseOperation(operation)).known;
}

/** Builds the template-0.3.0 event for one completed operation on a vCon; refuses a vCon without uuid. */
export function buildVconEvent(doc: VconDocument, operation: string, cfg: TemplateConfig): VconEventBody {
  const uuid = requireVconUuid(doc);
  const op = normaliseOperation(operation);
  const timestamp = declaredTime(doc, cfg);
  const attrs: Record<string, string> = {
    ...cfg.extraAttributes,
    arc_display_type: op,
    vcon_operation: op,
    conserver_link: cfg.link,
    conserver_link_name: cfg.linkName,
    conserver_link_version: TEMPLATE_VERSION,
    payload: hashVcon(doc, cfg.hashMode),
    payload_hash_alg: "SHA-256",
    payload_preimage_content_type: cfg.preimageContentType ?? "application/vcon+json",
    subject: `vcon://${uuid}`,
    vcon_draft_version: cfg.vconDraftVersion ?? "01",
    scitt_draft_version: cfg.scittDraftVersion ?? "10",
  };
  if (cfg.purposes?.length) attrs[LIFECYCLE_ATTRIBUTES.purpose] = cfg.purposes.join(",");
  // Never in place of a template attribute (nor of an extra one the config names).
  if (cfg.partyAttributes) for (const [k, v] of Object.entries(partyAttributes(doc))) attrs[k] ??= v;
  if (timestamp !== undefined) attrs.timestamp_declared = timestamp;
  else delete attrs.timestamp_declared;
  const body: VconEventBody = { operation: "Record", behaviour: "RecordEvidence", event_attributes: attrs };
  // The event's own declared time only when it is a zoned RFC 3339 time (stored values may lack a zone).
  if (timestamp !== undefined && RFC3339.test(timestamp) && !Number.isNaN(Date.parse(timestamp)))
    body.timestamp_declared = timestamp;
  return body;
}
