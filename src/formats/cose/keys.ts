import { type CborValue, encodeCbor } from "../cbor/index.js";
import { fromBase64 } from "../crypto/bytes.js";
import {
  type EcJwk,
  jwkOfPoint,
  type PublicKey,
  type PublicKeyFactory,
  publicKeyFromJwk,
} from "../crypto/public-key.js";
import { ES256 } from "./sign1.js";

/** COSE_Key (EC2, P-256) of a public key, with its kid. */
function coseKey(jwk: EcJwk, kid: string): Map<CborValue, CborValue> {
  if (jwk.crv !== "P-256") throw new TypeError("only P-256 keys are published as COSE keys");
  return new Map<CborValue, CborValue>([
    [1, 2],
    [2, new TextEncoder().encode(kid)],
    [3, ES256],
    [-1, 1],
    [-2, fromBase64(jwk.x)],
    [-3, fromBase64(jwk.y)],
  ]);
}

/** One COSE_Key, as `/.well-known/scitt-keys/{kid}` serves it. */
export function coseKeyBytes(jwk: EcJwk, kid: string): Uint8Array {
  return encodeCbor(coseKey(jwk, kid));
}

/** COSE_KeySet (a CBOR array of COSE_Key), as `/.well-known/scitt-keys` serves it. */
export function coseKeySet(keys: Array<{ jwk: EcJwk; kid: string }>): Uint8Array {
  return encodeCbor(keys.map((k) => coseKey(k.jwk, k.kid)));
}

/**
 * The public key of a COSE_Key map (EC2 P-256), or undefined if it is not one. `makeKey` is the
 * portable one unless a Node program passes node:crypto's.
 */
export function publicKeyFromCoseKey(
  key: Map<CborValue, CborValue>,
  makeKey: PublicKeyFactory = publicKeyFromJwk,
): { kid: string; publicKey: PublicKey } | undefined {
  const x = key.get(-2);
  const y = key.get(-3);
  const kid = key.get(2);
  if (key.get(1) !== 2 || key.get(-1) !== 1 || !(x instanceof Uint8Array) || !(y instanceof Uint8Array))
    return undefined;
  const publicKey = makeKey(jwkOfPoint("P-256", x, y));
  return { kid: kid instanceof Uint8Array ? new TextDecoder().decode(kid) : "", publicKey };
}
