import { ed25519 } from "@noble/curves/ed25519.js";
import { p256, p384, p521 } from "@noble/curves/nist.js";
import { sha256, sha384, sha512 } from "@noble/hashes/sha2.js";
import { fromBase64, toBase64url } from "./bytes.js";

/** An EC public key as a JWK (RFC 7518 §6.2.1): the form keys are given and published in. */
export interface EcJwk {
  kty: "EC";
  crv: "P-256" | "P-384" | "P-521";
  x: string;
  y: string;
}

/** An Ed25519 public key as a JWK (RFC 8037 §2). */
export interface OkpJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
}

/** The digest an ECDSA signature was made over (ES256: SHA-256, ES384: SHA-384, ES512: SHA-512). */
export type SignatureHash = "sha256" | "sha384" | "sha512";

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

/**
 * A statement issuer's key: ECDSA on P-256, P-384 or P-521 (a `PublicKey`), or Ed25519. The
 * receipts' and seals' keys are the service's, always `PublicKey`s.
 */
export type SignatureKey = PublicKey | Ed25519Key;

/** An Ed25519 public key: checks a PureEdDSA signature (RFC 8032, which hashes inside) over data. */
export interface Ed25519Key {
  readonly jwk: OkpJwk;
  verify(data: Uint8Array, signature: Uint8Array): boolean;
}

export const isEd25519Key = (key: SignatureKey): key is Ed25519Key => key.jwk.kty === "OKP";

const CURVES = {
  "P-256": { curve: p256, size: 32 },
  "P-384": { curve: p384, size: 48 },
  // 521 bits, each coordinate in 66 bytes (RFC 7518 §6.2.1.2).
  "P-521": { curve: p521, size: 66 },
} as const;
const DIGESTS = { sha256, sha384, sha512 } as const;

/** A JWK checked to be an EC public key on a curve we verify (TypeError otherwise). */
export function ecJwk(value: unknown): EcJwk {
  const j = value as Partial<EcJwk> | null;
  if (!j || typeof j !== "object" || j.kty !== "EC" || !(j.crv !== undefined && j.crv in CURVES))
    throw new TypeError("an EC public key on P-256, P-384 or P-521 is expected");
  if (typeof j.x !== "string" || typeof j.y !== "string") throw new TypeError("the JWK has no x and y");
  return { kty: "EC", crv: j.crv, x: j.x, y: j.y };
}

/** A JWK checked to be a key a statement's issuer may sign with: `ecJwk`'s, or Ed25519 (TypeError otherwise). */
export function signatureJwk(value: unknown): EcJwk | OkpJwk {
  const j = value as Partial<OkpJwk> | null;
  if (j && typeof j === "object" && j.kty === "OKP") {
    if (j.crv !== "Ed25519") throw new TypeError("an OKP public key on Ed25519 is expected");
    if (typeof j.x !== "string") throw new TypeError("the JWK has no x");
    return { kty: "OKP", crv: "Ed25519", x: j.x };
  }
  return ecJwk(value);
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

/** The portable Ed25519 key (@noble/curves). Throws on a point that is not on the curve. */
function ed25519KeyFromJwk(input: OkpJwk): Ed25519Key {
  const jwk = signatureJwk(input);
  if (jwk.kty !== "OKP") throw new TypeError("an OKP Ed25519 key is expected");
  const x = fromBase64(jwk.x);
  if (x.length !== 32) throw new TypeError("Ed25519 public keys are 32 bytes");
  ed25519.Point.fromBytes(x);
  return {
    jwk,
    verify(data, signature) {
      try {
        // RFC 8032's rules, which OpenSSL (node:crypto) also applies, not ZIP 215's looser ones.
        return signature.length === 64 && ed25519.verify(signature, data, x, { zip215: false });
      } catch {
        return false;
      }
    },
  };
}

/**
 * The portable key of a statement issuer's JWK: ECDSA on P-256, P-384 or P-521 (`publicKeyFromJwk`)
 * or Ed25519 (`ed25519KeyFromJwk`). It verifies statements signed under its own algorithm only
 * (ES256, ES384, ES512, EdDSA). Throws on a key of another kind or a point off its curve.
 *
 * @example
 * ```ts
 * const issuerKeys = new Map([["issuer-1", signatureKeyFromJwk({ kty: "OKP", crv: "Ed25519", x })]]);
 * const v = verifyStatement(transparentStatement, { issuerKeys, serviceKeys: keysFromKeySet(keySet) });
 * ```
 */
export function signatureKeyFromJwk(input: EcJwk | OkpJwk): SignatureKey {
  const jwk = signatureJwk(input);
  return jwk.kty === "OKP" ? ed25519KeyFromJwk(jwk) : publicKeyFromJwk(jwk);
}
