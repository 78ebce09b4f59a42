// Making a signed statement of an event is the service's (and a link's) work; the audit room keeps
// the reverse mapping a verifier reads (verify/scitt/statement.ts) and the labels both share.
import type { CborValue } from "../../formats/cbor/encode.js";
import { ES256, HEADER } from "../../formats/cose/sign1.js";
import { fromHex } from "../../formats/crypto/bytes.js";
import { LABEL, SHA256, StatementError } from "../../formats/scitt/statement.js";
import { type Signer, signSign1 } from "../log/sign1.js";

const STATEMENT_TYP = "application/hashed+cose";

/** The required template attributes that are absent, null, empty or not text, in template order: all of them. */
function missingTemplateAttributes(attrs: Record<string, unknown>): string[] {
  return REQUIRED_TEMPLATE.filter((name) => typeof attrs[name] !== "string" || attrs[name] === "");
}

/**
 * Attributes a template-0.3.0 event must carry for a statement to be made of it. The template
 * also lists `scitt_draft_version` as required, but vcon-server's own `datatrails` link (0.3.0)
 * never sends it: it goes to the meta-map when present, and its absence does not keep the
 * link's events from becoming statements.
 */
export const REQUIRED_TEMPLATE = [
  "arc_display_type",
  "payload",
  "payload_hash_alg",
  "payload_preimage_content_type",
  "subject",
  "timestamp_declared",
  "vcon_operation",
  "vcon_draft_version",
] as const;

/** Attributes that map to headers rather than the meta-map. */
const HEADER_ATTRIBUTES = new Set([
  "payload",
  "payload_hash_alg",
  "payload_preimage_content_type",
  "payload_location",
  "subject",
]);

export interface StatementOptions {
  issuer: string;
  kid: string;
  form?: "private-labels" | "rfc9995";
  detached?: boolean;
}

function text(attrs: Record<string, unknown>, name: string): string {
  const v = attrs[name];
  if (typeof v !== "string" || v === "")
    throw new StatementError(`${name} is required (a non-empty string) to make a signed statement`);
  return v;
}

function metaMap(attrs: Record<string, unknown>): Map<CborValue, CborValue> {
  const meta = new Map<CborValue, CborValue>();
  for (const [k, v] of Object.entries(attrs)) {
    // A null attribute is an absent one (the API stores it as sent).
    if (HEADER_ATTRIBUTES.has(k) || v === null) continue;
    // arc_display_type duplicates vcon_operation by the template's rule; the reverse mapping restores it.
    if (k === "arc_display_type" && v === attrs.vcon_operation) continue;
    meta.set(k, typeof v === "string" ? v : JSON.stringify(v));
  }
  return meta;
}

/** The protected header of a template-0.3.0 event's hashed signed statement. */
function statementHeader(attrs: Record<string, unknown>, opts: StatementOptions): Map<CborValue, CborValue> {
  const missing = missingTemplateAttributes(attrs);
  if (missing.length)
    throw new StatementError(
      `${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} required (non-empty strings) to make a signed statement`,
      missing,
    );
  if (text(attrs, "payload_hash_alg").toUpperCase().replace("-", "") !== "SHA256")
    throw new StatementError("payload_hash_alg must be SHA-256");
  const claims = new Map<CborValue, CborValue>([
    [1, opts.issuer],
    [2, text(attrs, "subject")],
  ]);
  const h = new Map<CborValue, CborValue>([
    [HEADER.alg, ES256],
    [HEADER.kid, new TextEncoder().encode(opts.kid)],
    [HEADER.cwtClaims, claims],
  ]);
  const location = typeof attrs.payload_location === "string" ? attrs.payload_location : undefined;
  if (opts.form === "rfc9995") {
    h.set(LABEL.hashEnvelopeAlg, SHA256);
    h.set(LABEL.hashEnvelopeContentType, text(attrs, "payload_preimage_content_type"));
    if (location) h.set(LABEL.hashEnvelopeLocation, location);
    return h;
  }
  h.set(HEADER.typ, STATEMENT_TYP);
  h.set(LABEL.payloadHashAlg, SHA256);
  if (location) h.set(LABEL.payloadLocation, location);
  h.set(LABEL.payloadPreimageContentType, text(attrs, "payload_preimage_content_type"));
  h.set(LABEL.meta, metaMap(attrs));
  return h;
}

/** The hash the statement's payload carries, from the event's hex `payload`. */
function payloadBytes(attrs: Record<string, unknown>): Uint8Array {
  const hex = text(attrs, "payload");
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new StatementError("payload must be a SHA-256 digest in hex");
  return fromHex(hex);
}

/** Deterministic mapping of a template-0.3.0 event to a COSE_Sign1 hashed signed statement. */
export function eventToStatement(
  attrs: Record<string, unknown>,
  opts: StatementOptions,
  signer: Signer,
): Uint8Array {
  return signSign1(
    {
      protectedHeader: statementHeader(attrs, opts),
      payload: payloadBytes(attrs),
      detached: opts.detached === true,
    },
    signer,
  );
}
