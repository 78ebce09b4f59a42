// ECVRF-EDWARDS25519-SHA512-TAI, RFC 9381 (suite_string 0x03): a keyed hash whose output anyone with
// the public key can check, so a log can index entries by a value that cannot be guessed from the
// input without the key, yet every lookup is provable. Written from the RFC's steps (§5.1–§5.4,
// the suite of §5.5) over @noble's edwards25519 arithmetic; the RFC's Appendix B.3 vectors hold it
// (test/unit/formats/vrf/ecvrf.test.ts).
import { mulAddUnsafe } from "@noble/curves/abstract/curve.js";
import type { EdwardsPoint } from "@noble/curves/abstract/edwards.js";
import { ed25519 } from "@noble/curves/ed25519.js";
import { bytesToNumberLE, numberToBytesLE } from "@noble/curves/utils.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { CodedError } from "../coded-error.js";

/** A VRF input refused: a secret key or a proof of the wrong shape, or an encoding that is no point. */
export class VrfError extends CodedError<"VRF_INVALID"> {
  readonly code = "VRF_INVALID";
}

const Point = ed25519.Point;
const BASE = Point.BASE;
/** q, the order of the prime subgroup the VRF works in. */
const L = Point.Fn.ORDER;

const SUITE = 0x03;
/** ptLen = qLen = 32 for edwards25519; cLen = 16 (§5.5). */
const PT_LEN = 32;
const C_LEN = 16;
const Q_LEN = 32;
/** Gamma ‖ c ‖ s. */
const VRF_PROOF_LENGTH = PT_LEN + C_LEN + Q_LEN;
const VRF_SECRET_KEY_LENGTH = 32;

// The domain separators of §5.4.1.1 (encode to curve), §5.4.3 (challenge) and §5.2 (proof to hash):
// each hash the suite makes is told apart by its front byte, and all end in 0x00.
const ENCODE_FRONT = 0x01;
const CHALLENGE_FRONT = 0x02;
const PROOF_TO_HASH_FRONT = 0x03;
const BACK = 0x00;

/**
 * string_to_point (§5.5: RFC 8032 §5.1.3), strict: a y at or past p, or x = 0 with its sign bit
 * set, is no point. Because of that, a point decoded here re-encodes to the very same bytes, which
 * lets the checks below hash the caller's bytes instead of encoding the point again.
 */
function decodePoint(bytes: Uint8Array): EdwardsPoint | undefined {
  if (bytes.length !== PT_LEN) return undefined;
  try {
    return Point.fromBytes(bytes, false);
  } catch {
    return undefined;
  }
}

/**
 * ECVRF_encode_to_curve_try_and_increment's loop (§5.4.1.1), with the public key as its salt
 * (§5.5): `accept` takes each candidate hash string in turn and returns what it makes of a good
 * one, undefined for one the RFC skips. Apart from the loop so that the index's output
 * (vindex-output.ts) can judge the same candidates by cheaper arithmetic than a point decode.
 * Its running time depends on alpha, which the RFC accepts for this suite: alpha is not secret.
 * Undefined only when all 256 counters fail, which happens with probability about 2^-256.
 */
export function tryAndIncrement<T>(
  salt: Uint8Array,
  alpha: Uint8Array,
  accept: (candidate: Uint8Array) => T | undefined,
): T | undefined {
  const input = new Uint8Array(2 + salt.length + alpha.length + 2);
  input[0] = SUITE;
  input[1] = ENCODE_FRONT;
  input.set(salt, 2);
  input.set(alpha, 2 + salt.length);
  const ctrAt = input.length - 2;
  input[input.length - 1] = BACK;
  for (let ctr = 0; ctr < 256; ctr++) {
    input[ctrAt] = ctr;
    const found = accept(sha512(input).subarray(0, PT_LEN));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** H: a candidate that decodes, times the cofactor, unless that is the identity. */
function encodeToCurve(salt: Uint8Array, alpha: Uint8Array): EdwardsPoint | undefined {
  return tryAndIncrement(salt, alpha, (candidate) => {
    const point = decodePoint(candidate);
    if (point === undefined) return undefined;
    // Multiplying by the cofactor lands in the prime subgroup; the identity would make every
    // key's Gamma the same, so the RFC skips it like an invalid encoding.
    const h = point.clearCofactor();
    return h.is0() ? undefined : h;
  });
}

/** ECVRF_challenge_generation (§5.4.3): the first cLen bytes of the hash, little-endian. */
function challenge(...points: Uint8Array[]): bigint {
  const input = new Uint8Array(2 + points.length * PT_LEN + 1);
  input[0] = SUITE;
  input[1] = CHALLENGE_FRONT;
  for (const [i, p] of points.entries()) input.set(p, 2 + i * PT_LEN);
  input[input.length - 1] = BACK;
  return bytesToNumberLE(sha512(input).subarray(0, C_LEN));
}

/** ECVRF_nonce_generation_RFC8032 (§5.4.2.2): Ed25519's deterministic nonce, over h_string. */
function nonce(prefix: Uint8Array, hString: Uint8Array): bigint {
  const input = new Uint8Array(prefix.length + hString.length);
  input.set(prefix, 0);
  input.set(hString, prefix.length);
  return bytesToNumberLE(sha512(input)) % L;
}

/** The hash of §5.2 over point_to_string(cofactor * Gamma), given that multiple already made. */
function betaOf(gammaCleared: EdwardsPoint): Uint8Array {
  const input = new Uint8Array(2 + PT_LEN + 1);
  input[0] = SUITE;
  input[1] = PROOF_TO_HASH_FRONT;
  input.set(gammaCleared.toBytes(), 2);
  input[input.length - 1] = BACK;
  return sha512(input);
}

interface DecodedProof {
  readonly gamma: EdwardsPoint;
  readonly gammaBytes: Uint8Array;
  readonly c: bigint;
  readonly s: bigint;
}

/** ECVRF_decode_proof (§5.4.4); undefined where the RFC says INVALID (no point, or s ≥ q). */
export function decodeProof(pi: Uint8Array): DecodedProof | undefined {
  if (pi.length !== VRF_PROOF_LENGTH) return undefined;
  const gammaBytes = pi.subarray(0, PT_LEN);
  const gamma = decodePoint(gammaBytes);
  if (gamma === undefined) return undefined;
  const c = bytesToNumberLE(pi.subarray(PT_LEN, PT_LEN + C_LEN));
  const s = bytesToNumberLE(pi.subarray(PT_LEN + C_LEN));
  if (s >= L) return undefined;
  return { gamma, gammaBytes, c, s };
}

/** What proving needs of a secret key (RFC 8032 §5.1.5), worked out once per key. */
export interface ExpandedKey {
  /**
   * The secret scalar's 32 bytes as RFC 8032 clamps them, before any reduction: X25519 clamps in
   * the same way, so these bytes are an X25519 private key for the same multiple of a point of
   * order q (the index's native output, src/core/node/vrf.ts).
   */
  readonly head: Uint8Array;
  /** x, the secret scalar, reduced mod q (the same multiple of any point of the subgroup). */
  readonly x: bigint;
  /** cofactor · x mod q: beta's point from H in one multiplication. */
  readonly x8: bigint;
  /** The hash's second half, the nonce's key (§5.4.2.2's truncated_hashed_sk_string). */
  readonly prefix: Uint8Array;
  readonly publicKey: Uint8Array;
}

export function expandSecretKey(secretKey: Uint8Array): ExpandedKey {
  if (!(secretKey instanceof Uint8Array) || secretKey.length !== VRF_SECRET_KEY_LENGTH)
    throw new VrfError(`a VRF secret key is ${VRF_SECRET_KEY_LENGTH} bytes`);
  const { head, scalar, prefix, pointBytes } = ed25519.utils.getExtendedPublicKey(secretKey);
  return { head, x: scalar, x8: (scalar * 8n) % L, prefix, publicKey: pointBytes };
}

/** H for alpha: the index's output (vindex-output.ts) starts from the very H a proof is made on. */
export function toCurve(publicKey: Uint8Array, alpha: Uint8Array): EdwardsPoint {
  if (!(alpha instanceof Uint8Array)) throw new VrfError("alpha is bytes");
  const h = encodeToCurve(publicKey, alpha);
  if (h === undefined) throw new VrfError("alpha encodes to no point (probability 2^-256)");
  return h;
}

/** ECVRF_prove (§5.1). x and the nonce k are secret: their multiplications are noble's constant-time ones. */
export function proveWith(key: ExpandedKey, alpha: Uint8Array): Uint8Array {
  const h = toCurve(key.publicKey, alpha);
  const hBytes = h.toBytes();
  const gamma = h.multiply(key.x);
  const k = nonce(key.prefix, hBytes);
  const gammaBytes = gamma.toBytes();
  const c = challenge(key.publicKey, hBytes, gammaBytes, BASE.multiply(k).toBytes(), h.multiply(k).toBytes());
  const s = (k + c * key.x) % L;
  const pi = new Uint8Array(VRF_PROOF_LENGTH);
  pi.set(gammaBytes, 0);
  pi.set(numberToBytesLE(c, C_LEN), PT_LEN);
  pi.set(numberToBytesLE(s, Q_LEN), PT_LEN + C_LEN);
  return pi;
}

/**
 * beta without the proof: proof_to_hash(prove(alpha)) hashes cofactor · Gamma = cofactor · x · H,
 * so the nonce, U, V and the challenge (half of proving) are not needed for the output alone.
 */
function hashWith(key: ExpandedKey, alpha: Uint8Array): Uint8Array {
  return betaOf(toCurve(key.publicKey, alpha).multiply(key.x8));
}

/** A prover for one secret key: the key is hashed and its public key derived once, not per alpha. */
export interface VrfSigner {
  /** The 32-byte public key (Ed25519's for the same secret key). */
  readonly publicKey: Uint8Array;
  /** The 80-byte proof pi for alpha. */
  prove(alpha: Uint8Array): Uint8Array;
  /** The 64-byte output beta for alpha, equal to vrfProofToHash(prove(alpha)) and cheaper. */
  hash(alpha: Uint8Array): Uint8Array;
}

/** A prover that keeps the expanded secret key; throws a VrfError when the key is not 32 bytes. */
export function vrfSigner(secretKey: Uint8Array): VrfSigner {
  const key = expandSecretKey(secretKey);
  return {
    // A copy: the salt every proof hashes must not change under the prover if a caller writes here.
    publicKey: key.publicKey.slice(),
    prove: (alpha) => proveWith(key, alpha),
    hash: (alpha) => hashWith(key, alpha),
  };
}

/** The 32-byte public key of a 32-byte secret key (RFC 8032 §5.1.5, as Ed25519's). */
export function vrfPublicKey(secretKey: Uint8Array): Uint8Array {
  return expandSecretKey(secretKey).publicKey;
}

/** ECVRF_prove: the 80-byte proof pi (Gamma ‖ c ‖ s). For many alphas under one key, see vrfSigner. */
export function vrfProve(secretKey: Uint8Array, alpha: Uint8Array): Uint8Array {
  return proveWith(expandSecretKey(secretKey), alpha);
}

/** The 64-byte VRF output beta of alpha under a secret key: vrfProofToHash(vrfProve(…)). */
export function vrfHash(secretKey: Uint8Array, alpha: Uint8Array): Uint8Array {
  return hashWith(expandSecretKey(secretKey), alpha);
}

/**
 * ECVRF_proof_to_hash (§5.2): beta of a proof, without checking it. Only for a proof known to be
 * good (one made here, or one vrfVerify accepted, which returns beta itself); throws a VrfError
 * on a proof that does not decode.
 */
export function vrfProofToHash(pi: Uint8Array): Uint8Array {
  const proof = pi instanceof Uint8Array ? decodeProof(pi) : undefined;
  if (proof === undefined) throw new VrfError(`a VRF proof is ${VRF_PROOF_LENGTH} bytes: Gamma, c, s < q`);
  return betaOf(proof.gamma.clearCofactor());
}

/**
 * ECVRF_verify (§5.3) with validate_key (§5.4.5): beta when pi proves alpha under the public key,
 * else null, for any bytes: a key or proof of the wrong length, an encoding that is no point, a
 * public key of small order (whose proofs anyone could forge) or s ≥ q are all null.
 */
export function vrfVerify(publicKey: Uint8Array, pi: Uint8Array, alpha: Uint8Array): Uint8Array | null {
  const y = decodePoint(publicKey);
  if (y === undefined || y.isSmallOrder()) return null;
  const proof = decodeProof(pi);
  if (proof === undefined) return null;
  const h = encodeToCurve(publicKey, alpha);
  if (h === undefined) return null;
  // U = s·B − c·Y, V = s·H − c·Gamma. Every value here is public, so the variable-time walks are
  // right. s·B takes the base point's cached table; H is new each time, so V shares one doubling
  // chain between its two terms instead.
  const { gamma, gammaBytes, c, s } = proof;
  const u = BASE.multiplyUnsafe(s).subtract(y.multiplyUnsafe(c));
  const v = mulAddUnsafe(Point, [h, gamma.negate()], [s, c]);
  const expected = challenge(publicKey, h.toBytes(), gammaBytes, u.toBytes(), v.toBytes());
  return expected === c ? betaOf(gamma.clearCofactor()) : null;
}
