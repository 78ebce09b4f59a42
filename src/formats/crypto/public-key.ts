import { p256, p384 } from "@noble/curves/nist.js";
import { sha256, sha384 } from "@noble/hashes/sha2.js";
import { fromBase64, toBase64url } from "./bytes.js";

/** An EC public key as a JWK (RFC 7518 §6.2.1): the form keys are given and published in. */
export interface EcJwk {
  kty: "EC";
  crv: "P-256" | "P-384";
  x: string;
  y: string;
}

/** The digest an ECDSA signature was made over (ES256: SHA-256, ES384: SHA-384). */
export type SignatureHash = "sha256" | "sha384";

/**
 * A public key the verifier checks signatures with: its JWK, and how to check an ECDSA
 * signature (IEEE P1363 r‖s) over data. `publicKeyFromJwk` makes the portable one; Node
 * programs may make one on node:crypto (`nodePublicKey`, which the service and the CLI use),
 * since the check is the same and OpenSSL's is faster.
 */
export interface PublicKey {
  readonly jwk: EcJwk;
  verify(hash: SignatureHash, data: Uint8Array, signature: Uint8Array): boolean;
}

/** Makes a PublicKey of a JWK: `publicKeyFromJwk` or, on Node, `nodePublicKeyFromJwk`. */
export type PublicKeyFactory = (jwk: EcJwk) => PublicKey;

const CURVES = { "P-256": { curve: p256, size: 32 }, "P-384": { curve: p384, size: 48 } } as const;
const DIGESTS = { sha256, sha384 } as const;

/** A JWK checked to be an EC public key on a curve we verify (TypeError otherwise). */
export function ecJwk(value: unknown): EcJwk {
  const j = value as Partial<EcJwk> | null;
  if (!j || typeof j !== "object" || j.kty !== "EC" || !(j.crv === "P-256" || j.crv === "P-384"))
    throw new TypeError("an EC public key on P-256 or P-384 is expected");
  if (typeof j.x !== "string" || typeof j.y !== "string") throw new TypeError("the JWK has no x and y");
  return { kty: "EC", crv: j.crv, x: j.x, y: j.y };
}

/** The JWK of a public key's coordinates. */
export const jwkOfPoint = (crv: EcJwk["crv"], x: Uint8Array, y: Uint8Array): EcJwk => ({
  kty: "EC",
  crv,
  x: toBase64url(x),
  y: toBase64url(y),
});

/**
 * The portable PublicKey (@noble/curves): runs wherever JavaScript does. Throws on a point off the curve.
 *
 * @example
 * ```ts
 * const key = publicKeyFromJwk({ kty: "EC", crv: "P-256", x, y });
 * const verdict = verifyRecordReceipt(record, receipt, key);
 * ```
 */
export function publicKeyFromJwk(input: EcJwk): PublicKey {
  const jwk = ecJwk(input);
  const { curve, size } = CURVES[jwk.crv];
  const x = fromBase64(jwk.x);
  const y = fromBase64(jwk.y);
  if (x.length !== size || y.length !== size) throw new TypeError(`${jwk.crv} coordinates are ${size} bytes`);
  const point = new Uint8Array(1 + 2 * size);
  point[0] = 4;
  point.set(x, 1);
  point.set(y, 1 + size);
  curve.Point.fromBytes(point).assertValidity();
  return {
    jwk,
    verify(hash, data, signature) {
      if (signature.length !== 2 * size) return false;
      try {
        // OpenSSL accepts high-S signatures, so this does as well.
        return curve.verify(signature, DIGESTS[hash](data), point, {
          prehash: false,
          lowS: false,
          format: "compact",
        });
      } catch {
        return false;
      }
    },
  };
}
