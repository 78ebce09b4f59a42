import { encodeCbor } from "../cbor/index.js";
import { decodeSign1 } from "../cose/index.js";
import { toHex } from "../crypto/bytes.js";
import { sha256 } from "../crypto/sha256.js";
import { statementToEventAttributes } from "./statement.js";

/** event_type of the asset-free event that records a registered statement. */
const REGISTERED_EVENT_TYPE = "scitt_statement";

/** SHA-256 of a statement without its unprotected header, so attaching receipts does not change it. */
function statementDigest(statement: Uint8Array): string {
  const s = decodeSign1(statement);
  return toHex(sha256(encodeCbor([s.protectedBytes, s.payload, s.signature])));
}

/**
 * The asset-free event a registration writes: attributes mapped from the statement's
 * headers plus its digest, on the subject's trail. A verifier derives exactly this from
 * the statement alone, so the log leaf is recomputable with no access to our records.
 */
export function registeredEvent(statement: Uint8Array): {
  attributes: Record<string, string>;
  trails: string[];
  event_type: string;
  issuer: string;
} {
  const { issuer, attributes } = statementToEventAttributes(statement);
  return {
    issuer,
    attributes: { ...attributes, scitt_issuer: issuer, scitt_statement_sha256: statementDigest(statement) },
    trails: attributes.subject ? [attributes.subject] : [],
    event_type: REGISTERED_EVENT_TYPE,
  };
}
