import { toHex } from "../crypto/bytes.js";
import { sha256 } from "../crypto/sha256.js";
import { FIELDS_V1_V2, FIELDS_V3, type HashedAssetEvent, pickFields } from "../record/hashed-fields.js";
import { bencode } from "./bencode.js";

/**
 * SIMPLE_HASH anchor of a batch: SHA-256 over bencode(event) of every event in
 * SIMPLEHASHV1 order. v1 keeps the v1/v2 fields with private identities, v2 keeps public
 * identities, v3 keeps the v3 fields (no asset_identity, confirmation_status, from).
 */
export function simpleHashAnchor(events: HashedAssetEvent[], version: 1 | 2 | 3): string {
  const encoded = events.map((e) =>
    bencode(version === 3 ? pickFields(e, FIELDS_V3, true) : pickFields(e, FIELDS_V1_V2, version === 1)),
  );
  return toHex(sha256(...encoded));
}
