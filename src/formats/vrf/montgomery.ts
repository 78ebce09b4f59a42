// u(8·H) without decoding a point: what the native index output (src/core/node/vrf.ts) pays per
// new key besides its X25519, so it is made cheap here. A strict Edwards decode takes a square
// root (~250 field squarings in BigInt) per candidate of try-and-increment, and the cofactor
// multiples then cost Edwards doublings and an encoding. But u = (1 + y)/(1 − y) needs only y, and
// x-only doubling on Curve25519 needs only u, so of the decode only its verdict is wanted: whether
// x² = (y² − 1)/(d·y² + 1) has a root, a Legendre symbol, which a binary Jacobi algorithm gives
// several times faster than the exponentiation. Public values only: variable time is right.
import { ed25519 } from "@noble/curves/ed25519.js";
import { bytesToNumberLE, numberToBytesLE } from "@noble/curves/utils.js";

const Fp = ed25519.Point.Fp;
const P = Fp.ORDER;
const D = ed25519.Point.CURVE().d;
/** (A + 2)/4 for Curve25519's A = 486662 (RFC 7748 §5 uses (A − 2)/4 with its other grouping). */
const A24 = 121666n;
const Y_MASK = (1n << 255n) - 1n;
const NUMBER_SAFE = 1n << 53n;
const U_LENGTH = 32;

/** A point of Curve25519 as (X : Z), u = X/Z; Z = 0 is the point at infinity (Edwards' identity). */
export interface XZ {
  readonly X: bigint;
  readonly Z: bigint;
}

/** The power of 2 dividing a > 0, 32 bits at a time so that a 255-bit value takes few BigInt steps. */
function trailingZeros(a: bigint): number {
  let zeros = 0;
  for (let rest = a; ; rest >>= 32n) {
    const low = Number(rest & 0xffffffffn);
    if (low !== 0) return zeros + 31 - Math.clz32(low & -low);
    zeros += 32;
  }
}

/** The Jacobi symbol once both values fit a double: the same steps without BigInt's allocations. */
function jacobiSmall(a: number, n: number): number {
  let t = 1;
  let x = a % n;
  let m = n;
  while (x !== 0) {
    while (x % 2 === 0) {
      x /= 2;
      if (m % 8 === 3 || m % 8 === 5) t = -t;
    }
    [x, m] = [m, x];
    if (x % 4 === 3 && m % 4 === 3) t = -t;
    x %= m;
  }
  return m === 1 ? t : 0;
}

/**
 * (a / p): 1 for a nonzero square, −1 for a non-square, 0 for 0. Binary Jacobi with quadratic
 * reciprocity; equal to Euler's a^((p−1)/2) because p is prime.
 */
export function legendre(a: bigint): number {
  let t = 1;
  let x = ((a % P) + P) % P;
  let m = P;
  while (x !== 0n) {
    if (x < NUMBER_SAFE && m < NUMBER_SAFE) return t * jacobiSmall(Number(x), Number(m));
    const zeros = trailingZeros(x);
    x >>= BigInt(zeros);
    // (2/m) is −1 exactly when m ≡ 3 or 5 (mod 8); an even count of halvings cancels.
    if (zeros % 2 === 1 && ((m & 7n) === 3n || (m & 7n) === 5n)) t = -t;
    [x, m] = [m, x];
    if ((x & 3n) === 3n && (m & 3n) === 3n) t = -t;
    x %= m;
  }
  return m === 1n ? t : 0;
}

/**
 * The Curve25519 point of a try-and-increment candidate, or undefined where RFC 8032's strict
 * decode (the one ecvrf.ts uses) refuses the bytes: y ≥ p, no x with that y, or x = 0 with its
 * sign bit set. x² = num/den has a root exactly when num·den does (den is never 0 on this curve:
 * −1/d is no square), and the sign of x is lost in u anyway: u(−P) = u(P).
 */
export function candidatePoint(candidate: Uint8Array): XZ | undefined {
  const encoded = bytesToNumberLE(candidate);
  const y = encoded & Y_MASK;
  if (y >= P) return undefined;
  const y2 = Fp.sqr(y);
  const num = Fp.sub(y2, 1n);
  if (legendre(Fp.mul(num, Fp.add(Fp.mul(D, y2), 1n))) < 0) return undefined;
  if (num === 0n && encoded !== y) return undefined;
  return { X: Fp.add(1n, y), Z: Fp.sub(1n, y) };
}

/** x-only doubling (RFC 7748's ladder step with both inputs alike); infinity stays infinity. */
function doubleXZ({ X, Z }: XZ): XZ {
  const aa = Fp.sqr(Fp.add(X, Z));
  const bb = Fp.sqr(Fp.sub(X, Z));
  const e = Fp.sub(aa, bb);
  return { X: Fp.mul(aa, bb), Z: Fp.mul(e, Fp.add(bb, Fp.mul(A24, e))) };
}

/** 8·point: three doublings. */
export const times8XZ = (point: XZ): XZ => doubleXZ(doubleXZ(doubleXZ(point)));

export const atInfinity = (point: XZ): boolean => Fp.is0(point.Z);

/** u = X/Z, 32 bytes little-endian; undefined at infinity, which has no u. */
export function affineU({ X, Z }: XZ): Uint8Array | undefined {
  if (Fp.is0(Z)) return undefined;
  return numberToBytesLE(Fp.mul(X, Fp.inv(Z)), U_LENGTH);
}
