import { createPublicKey, type KeyObject } from "node:crypto";
import { type CborValue, encodeCbor } from "../cbor/index.js";
import { ES256 } from "./sign1.js";

/** COSE_Key (EC2, P-256) of a public key, with its kid. */
function coseKey(publicKey: KeyObject, kid: string): Map<CborValue, CborValue> {
  const jwk = publicKey.export({ format: "jwk" }) as { crv?: string; x?: string; y?: string };
  if (jwk.crv !== "P-256" || !jwk.x || !jwk.y)
    throw new TypeError("only P-256 keys are published as COSE keys");
  return new Map<CborValue, CborValue>([
    [1, 2],
    [2, new TextEncoder().encode(kid)],
    [3, ES256],
    [-1, 1],
    [-2, new Uint8Array(Buffer.from(jwk.x, "base64url"))],
    [-3, new Uint8Array(Buffer.from(jwk.y, "base64url"))],
  ]);
}

/** One COSE_Key, as `/.well-known/scitt-keys/{kid}` serves it. */
export function coseKeyBytes(publicKey: KeyObject, kid: string): Uint8Array {
  return encodeCbor(coseKey(publicKey, kid));
}

/** COSE_KeySet (a CBOR array of COSE_Key), as `/.well-known/scitt-keys` serves it. */
export function coseKeySet(keys: Array<{ publicKey: KeyObject; kid: string }>): Uint8Array {
  return encodeCbor(keys.map((k) => coseKey(k.publicKey, k.kid)));
}

/** The public key of a COSE_Key map (EC2 P-256), or undefined if it is not one. */
export function publicKeyFromCoseKey(
  key: Map<CborValue, CborValue>,
): { kid: string; publicKey: KeyObject } | undefined {
  const x = key.get(-2);
  const y = key.get(-3);
  const kid = key.get(2);
  if (key.get(1) !== 2 || key.get(-1) !== 1 || !(x instanceof Uint8Array) || !(y instanceof Uint8Array))
    return undefined;
  const publicKey = createPublicKey({
    key: {
      kty: "EC",
      crv: "P-256",
      x: Buffer.from(x).toString("base64url"),
      y: Buffer.from(y).toString("base64url"),
    },
    format: "jwk",
  });
  return { kid: kid instanceof Uint8Array ? new TextDecoder().decode(kid) : "", publicKey };
}
