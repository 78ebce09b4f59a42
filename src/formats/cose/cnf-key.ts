import type { CborValue } from "../cbor/index.js";
import { fromBase64, sameBytes, toBase64url } from "../crypto/bytes.js";
import type { EcJwk, PublicKey } from "../crypto/public-key.js";
import { CoseError, HEADER } from "./sign1.js";

/** The CWT confirmation claim (RFC 8747) and its COSE_Key member. */
const CWT_CNF = 8;
const CNF_COSE_KEY = 1;

// COSE_Key labels (RFC 9052 §7, RFC 9053 §7.1.1): kty EC2, crv, x, y.
const KTY = 1;
const KTY_EC2 = 2;
const CRV = -1;
const X = -2;
const Y = -3;
const CURVES = new Map<EcJwk["crv"], number>([
  ["P-256", 1],
  ["P-384", 2],
]);

/** The `cnf` claim that carries `jwk` as a COSE_Key, as DataTrails' receipts carry their signing key. */
export function cnfClaimOf(jwk: EcJwk): Map<CborValue, CborValue> {
  const key = new Map<CborValue, CborValue>([
    [KTY, KTY_EC2],
    [CRV, CURVES.get(jwk.crv) as number],
    [X, fromBase64(jwk.x)],
    [Y, fromBase64(jwk.y)],
  ]);
  return new Map<CborValue, CborValue>([[CNF_COSE_KEY, key]]);
}

/**
 * The key a receipt's protected CWT claims carry in `cnf`, if any. Also in DataTrails' spellings
 * (kty "EC", crv "P-256"/"P-384"). Throws on a `cnf` that is not an EC2 key on a curve we know.
 */
export function carriedKeyOf(protectedHeader: Map<CborValue, CborValue>): EcJwk | undefined {
  const claims = protectedHeader.get(HEADER.cwtClaims);
  if (!(claims instanceof Map)) return undefined;
  const cnf = claims.get(CWT_CNF);
  if (cnf === undefined) return undefined;
  const key = cnf instanceof Map ? cnf.get(CNF_COSE_KEY) : undefined;
  if (!(key instanceof Map)) throw new CoseError("COSE_DECODE", "cnf claim carries no COSE_Key");
  const kty = key.get(KTY);
  const crvLabel = key.get(CRV);
  const crv = [...CURVES].find(([name, n]) => crvLabel === n || crvLabel === name)?.[0];
  const x = key.get(X);
  const y = key.get(Y);
  if ((kty !== KTY_EC2 && kty !== "EC") || !crv || !(x instanceof Uint8Array) || !(y instanceof Uint8Array))
    throw new CoseError("COSE_DECODE", "cnf claim's COSE_Key is not an EC2 key on P-256 or P-384");
  return { kty: "EC", crv, x: toBase64url(x), y: toBase64url(y) };
}

/**
 * Why a receipt is refused for the key it carries: it counts for nothing by itself (anyone can put
 * a key in a receipt they sign), so the only question is whether it is the pinned key.
 */
export function carriedKeyRefusal(carried: EcJwk | undefined, pinned: PublicKey): string | undefined {
  if (!carried) return undefined;
  const same =
    carried.crv === pinned.jwk.crv &&
    sameBytes(fromBase64(carried.x), fromBase64(pinned.jwk.x)) &&
    sameBytes(fromBase64(carried.y), fromBase64(pinned.jwk.y));
  return same ? undefined : "receipt carries a key (cnf) other than the one pinned for its service";
}
