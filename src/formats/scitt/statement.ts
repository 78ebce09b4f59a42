import { CodedError } from "../coded-error.js";
import { decodeSign1 } from "../cose/index.js";
import { toHex } from "../crypto/bytes.js";
import { cwtClaimsOf } from "./cwt-claims.js";

/** Private labels of the interface's statement mapping (the forward mapping is src/core/scitt/statement.ts). */
export const LABEL = {
  payloadHashAlg: -6800,
  payloadLocation: -6801,
  payloadPreimageContentType: -6802,
  meta: -6804,
  /** RFC 9995 (COSE hash envelope) labels. */
  hashEnvelopeAlg: 258,
  hashEnvelopeContentType: 259,
  hashEnvelopeLocation: 260,
} as const;

/** COSE's SHA-256 algorithm identifier, as a statement names its payload's hash. */
export const SHA256 = -16;

export class StatementError extends CodedError<"STATEMENT"> {
  readonly code = "STATEMENT";
  /** The template attributes the event lacks, all of them (a client fixes them in one round). */
  readonly missing: readonly string[];
  constructor(message: string, missing: readonly string[] = []) {
    super(message);
    this.missing = missing;
  }
}

/** The reverse mapping: a statement's headers (and payload) back to event attributes, plus its issuer. */
export function statementToEventAttributes(
  statement: Uint8Array,
  detachedPayload?: Uint8Array,
): { issuer: string; attributes: Record<string, string> } {
  const s = decodeSign1(statement);
  const h = s.protectedHeader;
  const claims = cwtClaimsOf(h);
  if (!claims) throw new StatementError("statement has no CWT claims (label 15)");
  const attrs: Record<string, string> = {};
  const payload = s.payload ?? detachedPayload;
  if (payload) attrs.payload = toHex(payload);
  const alg = h.get(LABEL.payloadHashAlg) ?? h.get(LABEL.hashEnvelopeAlg);
  if (alg === SHA256) attrs.payload_hash_alg = "SHA-256";
  const ct = h.get(LABEL.payloadPreimageContentType) ?? h.get(LABEL.hashEnvelopeContentType);
  if (typeof ct === "string") attrs.payload_preimage_content_type = ct;
  const loc = h.get(LABEL.payloadLocation) ?? h.get(LABEL.hashEnvelopeLocation);
  if (typeof loc === "string") attrs.payload_location = loc;
  if (typeof claims.get(2) === "string") attrs.subject = claims.get(2) as string;
  const meta = h.get(LABEL.meta);
  if (meta instanceof Map)
    for (const [k, v] of meta) if (typeof k === "string" && typeof v === "string") attrs[k] = v;
  if (attrs.vcon_operation && !attrs.arc_display_type) attrs.arc_display_type = attrs.vcon_operation;
  return { issuer: typeof claims.get(1) === "string" ? (claims.get(1) as string) : "", attributes: attrs };
}
