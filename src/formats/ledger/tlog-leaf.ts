import { type Sha256, sha256 } from "../crypto/sha256.js";

/**
 * The data an entry's RFC 9162 leaf hashes (leaf = SHA-256(0x00 ‖ data)). The two trees hold
 * the same entries in the same order; what differs is what a verifier must bring:
 *
 * - An asset event or an asset-free event: its MMR leaf hash. A verifier recomputes it from the
 *   record's API JSON as for an MMR receipt (it commits to the record and its idtimestamp), so
 *   an RFC 9162 receipt proves exactly what the MMR receipt proves.
 * - A registered signed statement: SHA-256 of the statement's payload. SCITT clients check an
 *   RFC9162_SHA256 receipt with nothing but the statement they sent; vcon-server's `scitt` link
 *   (v0.3.0) computes its leaf as SHA-256(0x00 ‖ SHA-256(payload)) and nothing else. The
 *   payload alone is committed in this tree: issuer, subject and signature are bound by the
 *   statement's own signature, and the MMR leaf of the same entry commits to all of it.
 *
 * The committer passes node:crypto's SHA-256 (`hash`); verifiers take the portable default.
 */
export function tlogLeafData(
  entry: {
    mmrLeaf: Uint8Array;
    statementPayload?: Uint8Array | undefined;
  },
  hash: Sha256 = sha256,
): Uint8Array {
  if (entry.statementPayload) return hash(entry.statementPayload);
  return entry.mmrLeaf;
}
