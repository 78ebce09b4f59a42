import type { CborValue } from "../cbor/index.js";
import { HEADER } from "../cose/index.js";

/**
 * The protected-header label early SCITT drafts (architecture -04, before RFC 9597 assigned 15)
 * gave the CWT claims. DataTrails' samples and vcon-server's `scitt` link still put them there.
 */
export const LEGACY_CWT_CLAIMS = 13;

/**
 * A statement's CWT claims: at label 15, or, when 15 is absent, at 13 read as if at 15. Only
 * the reading changes: the signature is checked over the protected bytes as sent.
 */
export function cwtClaimsOf(
  protectedHeader: Map<CborValue, CborValue>,
): Map<CborValue, CborValue> | undefined {
  const claims = protectedHeader.get(HEADER.cwtClaims) ?? protectedHeader.get(LEGACY_CWT_CLAIMS);
  return claims instanceof Map ? claims : undefined;
}
