// The verifiable index's VRF output (issue 72). Proofs stay RFC 9381's (ecvrf.ts), but the output
// the index positions a key by is its own:
//
//   output(alpha) = SHA-512( UTF-8("vindex/v1 output") ‖ u(8·Gamma) )
//
// with u the Montgomery u-coordinate of Curve25519, 32 bytes little-endian. RFC 9381's beta hashes
// the Edwards encoding of 8·Gamma, which only a scalar multiplication on the Edwards curve can
// give; u(8·Gamma) = u(x·8·H) is one X25519 of the prover's clamped scalar with u(8·H), which
// node:crypto does natively in a fraction of the time (src/core/node/vrf.ts). 8·Gamma and not
// Gamma for the reason the RFC hashes cofactor·Gamma: a prover could otherwise add a point of small
// order to Gamma and get a second output for the same alpha. Pure (@noble only): the verifier and
// the browser reach this file.
import type { EdwardsPoint } from "@noble/curves/abstract/edwards.js";
import { ed25519 } from "@noble/curves/ed25519.js";
import { numberToBytesLE } from "@noble/curves/utils.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { decodeProof, expandSecretKey, toCurve, tryAndIncrement, VrfError } from "./ecvrf.js";
import { affineU, atInfinity, candidatePoint, times8XZ } from "./montgomery.js";

/**
 * The front of every output's hash, naming the construction and its version so that no other
 * hash of a u-coordinate (nor a later version of this one) can be taken for it. Shared: not to be
 * written to.
 */
export const VINDEX_OUTPUT_TAG: Uint8Array = new TextEncoder().encode("vindex/v1 output");

const Fp = ed25519.Point.Fp;
const U_LENGTH = 32;
const PUBLIC_KEY_LENGTH = 32;

/**
 * u = (1 + y)/(1 − y), the birational map of RFC 7748 §4.1, taken from the projective Y/Z as
 * (Z + Y)/(Z − Y) so that one inversion serves. The identity (y = 1) has no u: a VrfError.
 */
export function montgomeryU(point: EdwardsPoint): Uint8Array {
  const { Y, Z } = point;
  const denominator = Fp.sub(Z, Y);
  if (Fp.is0(denominator)) throw new VrfError("the identity has no Montgomery u-coordinate");
  return numberToBytesLE(Fp.mul(Fp.add(Z, Y), Fp.inv(denominator)), U_LENGTH);
}

/** SHA-512(tag ‖ u): the output from u(8·Gamma), however u was reached. */
function vindexOutputOfU(u: Uint8Array): Uint8Array {
  const input = new Uint8Array(VINDEX_OUTPUT_TAG.length + U_LENGTH);
  input.set(VINDEX_OUTPUT_TAG, 0);
  input.set(u, VINDEX_OUTPUT_TAG.length);
  return sha512(input);
}

/** The cofactor multiple by three doublings: on public points only, where time may depend on them. */
const times8 = (p: EdwardsPoint): EdwardsPoint => p.double().double().double();

/**
 * The output of a proof's Gamma, without checking the proof: call it after vrfVerify accepted pi.
 * A VrfError for a proof that does not decode (as vrfProofToHash), and for a Gamma of small order,
 * whose 8·Gamma is the identity: no honest prover makes one, since H is of prime order and x ≠ 0.
 */
export function vindexOutputFromProof(pi: Uint8Array): Uint8Array {
  const proof = pi instanceof Uint8Array ? decodeProof(pi) : undefined;
  if (proof === undefined) throw new VrfError("a VRF proof is 80 bytes: Gamma, c, s < q");
  const gamma8 = times8(proof.gamma);
  if (gamma8.is0()) throw new VrfError("the proof's Gamma is of small order");
  return vindexOutputOfU(montgomeryU(gamma8));
}

/**
 * The output by Edwards arithmetic alone: 8·x·H with noble's constant-time multiplication. Slow
 * (about as slow as vrfHash); for browsers and as the reference the native path is tested on.
 */
export function vindexOutputPure(secretKey: Uint8Array, alpha: Uint8Array): Uint8Array {
  const key = expandSecretKey(secretKey);
  return vindexOutputOfU(montgomeryU(toCurve(key.publicKey, alpha).multiply(key.x8)));
}

/**
 * u(8·H) for alpha under the public key: the point the native path multiplies by the clamped
 * scalar. The same candidates as ecvrf.ts's H, judged and multiplied on Curve25519 by x-only
 * arithmetic (montgomery.ts), several times cheaper than decoding each on the Edwards curve. A
 * candidate whose 8·P is infinity is the identity H the RFC skips; past it H is of prime order, so
 * 8·H is never infinity.
 */
export function cofactorHashPointU(publicKey: Uint8Array, alpha: Uint8Array): Uint8Array {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== PUBLIC_KEY_LENGTH)
    throw new VrfError(`a VRF public key is ${PUBLIC_KEY_LENGTH} bytes`);
  if (!(alpha instanceof Uint8Array)) throw new VrfError("alpha is bytes");
  const h = tryAndIncrement(publicKey, alpha, (candidate) => {
    const point = candidatePoint(candidate);
    if (point === undefined) return undefined;
    const cleared = times8XZ(point);
    return atInfinity(cleared) ? undefined : cleared;
  });
  const u = h === undefined ? undefined : affineU(times8XZ(h));
  if (u === undefined) throw new VrfError("alpha encodes to no point (probability 2^-256)");
  return u;
}
