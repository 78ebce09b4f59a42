// The verifiable index's VRF output on node:crypto (issue 72): u(8·Gamma) = X25519(x, u(8·H)),
// since x·(8·H) = 8·(x·H) = 8·Gamma. OpenSSL's X25519 costs a fraction of noble's constant-time
// Edwards multiplication, which is what the ingest path would otherwise pay for every new key.
// What is hashed and how is src/formats/vrf/vindex-output.ts's; only the multiplication moves here.

import { createPrivateKey, createPublicKey, diffieHellman, hash, type KeyObject } from "node:crypto";
import { expandSecretKey, proveWith, VrfError } from "../../formats/vrf/ecvrf.js";
import { cofactorHashPointU, VINDEX_OUTPUT_TAG } from "../../formats/vrf/vindex-output.js";

/** The DER front of an X25519 private key (PKCS#8, RFC 8410), followed by the 32 scalar bytes. */
const PKCS8_X25519_FRONT = Buffer.from("302e020100300506032b656e04220420", "hex");

/** One VRF key's index outputs, each with one native X25519, and its RFC 9381 proofs. */
export interface NativeVindexOutput {
  /** The 32-byte public key (Ed25519's, the key proofs verify under). */
  readonly publicKey: Uint8Array;
  /** The 64-byte index output of alpha: vindexOutputPure(secretKey, alpha), faster. */
  output(alpha: Uint8Array): Uint8Array;
  /** The 80-byte RFC 9381 proof of alpha, the pure prover's. */
  prove(alpha: Uint8Array): Uint8Array;
}

/**
 * The private KeyObject is built once per key. Its bytes are RFC 8032's clamped scalar as is:
 * X25519 clamps the same three low bits, top bit and second bit, so its clamping changes nothing;
 * and the scalar is not reduced mod q because 8·H is of order q, where x and x mod q act alike.
 * A VrfError when the secret key is not 32 bytes.
 */
export function nativeVindexOutput(secretKey: Uint8Array): NativeVindexOutput {
  const key = expandSecretKey(secretKey);
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_X25519_FRONT, key.head]),
    format: "der",
    type: "pkcs8",
  });
  const input = Buffer.alloc(VINDEX_OUTPUT_TAG.length + 32);
  input.set(VINDEX_OUTPUT_TAG);
  return {
    // A copy: the salt of every H must not change under the prover if a caller writes here.
    publicKey: key.publicKey.slice(),
    output: (alpha) => {
      // Read only during the hash call, so one buffer per key serves every alpha.
      input.set(x25519(privateKey, cofactorHashPointU(key.publicKey, alpha)), VINDEX_OUTPUT_TAG.length);
      const d = hash("sha512", input, "buffer");
      return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
    },
    prove: (alpha) => proveWith(key, alpha),
  };
}

/**
 * u(x·P) from the u of P. The peer key goes in as a JWK, which OpenSSL takes as raw key bytes: the
 * same key as SPKI DER took ~10 times as long (~150 µs against ~11 under load), the DER passing
 * through OpenSSL 3's decoder search. OpenSSL refuses a result of zero, which only a point of small
 * order gives; u(8·H) is never one.
 */
function x25519(privateKey: KeyObject, u: Uint8Array): Buffer {
  try {
    const x = Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString("base64url");
    const publicKey = createPublicKey({ key: { kty: "OKP", crv: "X25519", x }, format: "jwk" });
    return diffieHellman({ privateKey, publicKey });
  } catch (e) {
    throw new VrfError(`X25519 refused the point: ${(e as Error).message}`);
  }
}
