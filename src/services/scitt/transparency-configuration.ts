import type { Ctx } from "../../context.js";
import { VDS_MMR } from "../../formats/cose/receipt.js";
import { VDS_RFC9162 } from "../../formats/cose/receipt-rfc9162.js";

/**
 * What a leaf is, per receipt profile: RFC 9942 leaves the entry to the log, and a generic
 * verifier must be told before it can recompute one. Keyed by the profile's name in the COSE
 * verifiable-data-structures registry. No profile's leaf is the statement's bytes (see
 * docs/standards.md for why, and how one could be offered).
 */
const LEAF_RULES = {
  RFC9162_SHA256: {
    vds: VDS_RFC9162,
    leaf_hash: "SHA-256(0x00 || leaf data) (RFC 9162 section 2.1.1)",
    registered_statement:
      "leaf data = SHA-256(statement payload): for a hashed signed statement, the hash of the payload hash",
    record: "leaf data = the record's 32-byte MMR leaf hash (the MMR profile's leaf below)",
    statement_bytes: false,
  },
  MMR: {
    vds: VDS_MMR,
    leaf_hash: "the MMR leaf itself (draft-bryce-cose-receipts-mmr-profile), as DataTrails makes it",
    registered_statement:
      "as an asset-free event: SHA-256(0x00 || 24 extra bytes (0x01, the tenant uuid's 16 bytes, 7 zero bytes) || the 8-byte id of the idtimestamp (the receipt's unprotected header -70001 carries it) || bencode(Go JSON of {attributes, trails, event_type})), the event read from the statement",
    record:
      "asset event: SHA-256(0x00 || the idtimestamp's 8-byte id || bencode(v3 fields)); asset-free event: as a registered statement",
    statement_bytes: false,
    proof_form:
      "396 / -1: [{1: mmr_index, 2: path}] (as DataTrails and Forestrie read it); mmr_proof=bstr: [bstr .cbor [mmr_index, path]]",
  },
} as const;

/**
 * The SCRAPI transparency configuration of the service, or of one tenancy's log under
 * `/tenants/<uuid>`: where to register, where the keys are, which receipt profiles it
 * issues (the first is what `/entries` answers when the request names none), and what a leaf
 * is in each.
 */
export function transparencyConfiguration(ctx: Pick<Ctx, "baseUrl" | "config">, prefix: string) {
  const base = `${ctx.baseUrl}${prefix}`;
  const profiles =
    ctx.config.scrapiReceiptProfile === "rfc9162" ? [VDS_RFC9162, VDS_MMR] : [VDS_MMR, VDS_RFC9162];
  return {
    issuer: ctx.baseUrl,
    registration_endpoint: `${base}/entries`,
    jwks_uri: `${ctx.baseUrl}/jwks`,
    scitt_keys_uri: `${ctx.baseUrl}/.well-known/scitt-keys`,
    // Of signed statements: what a registered issuer key may sign under (issuer-keys.ts).
    supported_signature_algorithms: ["ES256", "ES384", "ES512", "EdDSA"],
    receipt_media_type: "application/scitt-receipt+cose",
    verifiable_data_structures: profiles,
    default_verifiable_data_structure: profiles[0] as number,
    registration_by_signature: prefix !== "" || ctx.config.scittPublicLog !== undefined,
    leaf_rules: LEAF_RULES,
  };
}
