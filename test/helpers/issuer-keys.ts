import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { signSign1 } from "../../src/core/log/sign1.js";
import type { CborValue } from "../../src/formats/cbor/index.js";
import { EDDSA, ES256, ES384, ES512, HEADER, type SignatureAlg } from "../../src/formats/cose/sign1.js";

/** Each algorithm a statement issuer's key may sign under, with its COSE number and how Node makes the key. */
export const ISSUER_ALGORITHMS = [
  { alg: "ES256", cose: ES256, curve: "P-256", hash: "sha256" },
  { alg: "ES384", cose: ES384, curve: "P-384", hash: "sha384" },
  { alg: "ES512", cose: ES512, curve: "P-521", hash: "sha512" },
  { alg: "EdDSA", cose: EDDSA, curve: "Ed25519", hash: null },
] as const satisfies ReadonlyArray<{ alg: SignatureAlg; cose: number; curve: string; hash: string | null }>;

export type IssuerAlgorithm = (typeof ISSUER_ALGORITHMS)[number];

/** A fresh issuer key pair of the algorithm: its public JWK, and a signer of Sig_structure bytes. */
export function issuerKeyPair(a: IssuerAlgorithm): {
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: Record<string, unknown>;
  sign: (data: Uint8Array) => Uint8Array;
} {
  const pair =
    a.curve === "Ed25519"
      ? generateKeyPairSync("ed25519")
      : generateKeyPairSync("ec", { namedCurve: a.curve });
  return {
    privateKey: pair.privateKey,
    publicKey: pair.publicKey,
    publicJwk: pair.publicKey.export({ format: "jwk" }) as Record<string, unknown>,
    // COSE's ECDSA signatures are r‖s (IEEE P1363); EdDSA signs the bytes themselves.
    sign: (data) => new Uint8Array(sign(a.hash, data, { key: pair.privateKey, dsaEncoding: "ieee-p1363" })),
  };
}

/**
 * A signed statement as the registration policy takes one: `alg` (the COSE number given, which a
 * test may set to another than the key's), `kid`, CWT claims with issuer and subject, a payload.
 */
export function issuerStatement(
  key: { sign: (data: Uint8Array) => Uint8Array },
  opts: { alg: number; kid: string; issuer: string; subject: string; payload: Uint8Array },
): Uint8Array {
  const protectedHeader = new Map<CborValue, CborValue>([
    [HEADER.alg, opts.alg],
    [HEADER.kid, new TextEncoder().encode(opts.kid)],
    [HEADER.contentType, "application/json"],
    [
      HEADER.cwtClaims,
      new Map<CborValue, CborValue>([
        [1, opts.issuer],
        [2, opts.subject],
      ]),
    ],
  ]);
  return signSign1({ protectedHeader, payload: opts.payload }, key.sign);
}
