import { randomBytes } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { describe, expect, it } from "vitest";
import { CodedError } from "../../../../src/formats/coded-error.js";
import {
  VrfError,
  type VrfSigner,
  vrfHash,
  vrfProofToHash,
  vrfProve,
  vrfPublicKey,
  vrfSigner,
  vrfVerify,
} from "../../../../src/formats/vrf/index.js";
import { SMALL_ORDER, VINDEX_VECTORS, type VindexVector } from "./vindex-vectors.js";

const unhex = (h: string) => new Uint8Array(Buffer.from(h, "hex"));
const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString("hex"));

// RFC 9381, Appendix B.3: ECVRF-EDWARDS25519-SHA512-TAI, Examples 16, 17 and 18 (SK, PK, alpha,
// pi, beta), kept with the index's outputs for the same keys. Example 17 is the one whose
// try-and-increment needs a second counter.
const VECTORS = VINDEX_VECTORS as readonly [VindexVector, VindexVector, VindexVector];

const L = ed25519.Point.Fn.ORDER;
const [first] = VECTORS;
const PK = unhex(first.pk);
const PI = unhex(first.pi);
const ALPHA = unhex(first.alpha);

/** A copy of `bytes` with one bit flipped. */
function flipped(bytes: Uint8Array, byte: number, bit = 0): Uint8Array {
  const out = bytes.slice();
  out[byte] = (out[byte] as number) ^ (1 << bit);
  return out;
}

/** `pi` with its s replaced by `s` (32 bytes, little-endian). */
function withS(pi: Uint8Array, s: bigint): Uint8Array {
  const out = pi.slice();
  for (let i = 0; i < 32; i++) out[48 + i] = Number((s >> BigInt(8 * i)) & 0xffn);
  return out;
}

const sOf = (pi: Uint8Array) => pi.subarray(48).reduceRight((n, b) => (n << 8n) | BigInt(b), 0n);

describe("ECVRF-EDWARDS25519-SHA512-TAI: RFC 9381 Appendix B.3", () => {
  it.each(VECTORS)("example with alpha '$alpha': public key, pi, beta, verify", (v) => {
    const sk = unhex(v.sk);
    const alpha = unhex(v.alpha);
    expect(hex(vrfPublicKey(sk))).toBe(v.pk);
    expect(hex(vrfProve(sk, alpha))).toBe(v.pi);
    expect(hex(vrfProofToHash(unhex(v.pi)))).toBe(v.beta);
    expect(hex(vrfVerify(unhex(v.pk), unhex(v.pi), alpha))).toBe(v.beta);
    expect(hex(vrfHash(sk, alpha))).toBe(v.beta);
    const signer = vrfSigner(sk);
    expect(hex(signer.publicKey)).toBe(v.pk);
    expect(hex(signer.prove(alpha))).toBe(v.pi);
    expect(hex(signer.hash(alpha))).toBe(v.beta);
  });

  it("the public key is Ed25519's for the same secret key", () => {
    for (const v of VECTORS) expect(hex(ed25519.getPublicKey(unhex(v.sk)))).toBe(v.pk);
  });
});

describe("vrfVerify refuses", () => {
  it("a flipped bit in Gamma, in c and in s", () => {
    expect(hex(vrfVerify(PK, PI, ALPHA))).toBe(first.beta);
    for (const byte of [0, 5, 31]) expect(vrfVerify(PK, flipped(PI, byte), ALPHA)).toBeNull();
    for (const byte of [32, 40, 47]) expect(vrfVerify(PK, flipped(PI, byte), ALPHA)).toBeNull();
    for (const byte of [48, 60, 79]) expect(vrfVerify(PK, flipped(PI, byte), ALPHA)).toBeNull();
  });

  it("another alpha, and another example's proof", () => {
    expect(vrfVerify(PK, PI, unhex("00"))).toBeNull();
    expect(vrfVerify(PK, PI, unhex("72"))).toBeNull();
    expect(vrfVerify(PK, unhex(VECTORS[1].pi), unhex(VECTORS[1].alpha))).toBeNull();
  });

  it("another public key", () => {
    for (const other of [VECTORS[1].pk, VECTORS[2].pk]) expect(vrfVerify(unhex(other), PI, ALPHA)).toBeNull();
    expect(vrfVerify(flipped(PK, 0), PI, ALPHA)).toBeNull();
  });

  it("s ≥ q, even s + q, which would pass the equations (s·B is the same point)", () => {
    const s = sOf(PI);
    expect(s).toBeLessThan(L);
    for (const big of [L, L + 1n, s + L, (1n << 256n) - 1n]) {
      expect(vrfVerify(PK, withS(PI, big), ALPHA)).toBeNull();
      expect(() => vrfProofToHash(withS(PI, big))).toThrow(VrfError);
    }
  });

  it("wrong lengths of the key and the proof", () => {
    for (const n of [0, 31, 33, 64]) expect(vrfVerify(new Uint8Array(n).fill(1), PI, ALPHA)).toBeNull();
    expect(vrfVerify(PK.subarray(0, 31), PI, ALPHA)).toBeNull();
    for (const n of [0, 79, 81, 96]) {
      const pi = new Uint8Array(n);
      pi.set(PI.subarray(0, Math.min(n, 80)));
      expect(vrfVerify(PK, pi, ALPHA)).toBeNull();
    }
  });

  it("a public key of small order (validate_key, §5.4.5), whose proofs anyone could make", () => {
    for (const h of SMALL_ORDER) {
      expect(ed25519.Point.fromHex(h).isSmallOrder()).toBe(true);
      expect(vrfVerify(unhex(h), PI, ALPHA)).toBeNull();
    }
  });

  it("non-canonical encodings of the key and of Gamma (y ≥ p, or x = 0 with its sign bit)", () => {
    // y = p + 1: the identity's y past the field; and the identity with the sign of x set.
    const yPastP = `ee${"ff".repeat(30)}7f`;
    const negativeZero = `01${"00".repeat(30)}80`;
    for (const h of [yPastP, negativeZero]) {
      expect(() => ed25519.Point.fromHex(h, false)).toThrow();
      expect(vrfVerify(unhex(h), PI, ALPHA)).toBeNull();
      const pi = PI.slice();
      pi.set(unhex(h), 0);
      expect(vrfVerify(PK, pi, ALPHA)).toBeNull();
    }
    // An encoding that is no point of the curve at all.
    const pi = PI.slice();
    pi.set(unhex(`02${"00".repeat(31)}`), 0);
    expect(() => ed25519.Point.fromHex(`02${"00".repeat(31)}`)).toThrow();
    expect(vrfVerify(PK, pi, ALPHA)).toBeNull();
  });
});

describe("coded refusals", () => {
  it("vrfProofToHash throws a VrfError on a proof that does not decode", () => {
    for (const bad of [new Uint8Array(79), new Uint8Array(81), new Uint8Array(80).fill(0xff)]) {
      expect(() => vrfProofToHash(bad)).toThrow(VrfError);
    }
    try {
      vrfProofToHash(new Uint8Array(10));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(CodedError);
      expect([(e as VrfError).code, (e as VrfError).name]).toEqual(["VRF_INVALID", "VrfError"]);
    }
  });

  it("a secret key that is not 32 bytes is a VrfError", () => {
    for (const n of [0, 31, 33, 64]) {
      const sk = new Uint8Array(n);
      expect(() => vrfSigner(sk)).toThrow(VrfError);
      expect(() => vrfProve(sk, ALPHA)).toThrow(VrfError);
      expect(() => vrfPublicKey(sk)).toThrow(VrfError);
      expect(() => vrfHash(sk, ALPHA)).toThrow(VrfError);
    }
  });

  it("a signer's public key is its own copy: writing to it changes no later proof", () => {
    const signer = vrfSigner(unhex(first.sk));
    signer.publicKey.fill(0);
    expect(hex(signer.prove(ALPHA))).toBe(first.pi);
  });
});

describe("round trip over random keys and alphas", () => {
  it("50 keys: prove, then verify gives beta, as hash and proofToHash do; another alpha fails", () => {
    for (let i = 0; i < 50; i++) {
      const sk = new Uint8Array(randomBytes(32));
      const alpha = new Uint8Array(randomBytes(i));
      const signer = vrfSigner(sk);
      const pi = signer.prove(alpha);
      expect(pi).toHaveLength(80);
      expect(hex(vrfProve(sk, alpha))).toBe(hex(pi));
      const beta = vrfVerify(signer.publicKey, pi, alpha);
      expect(beta).toHaveLength(64);
      expect(hex(beta)).toBe(hex(signer.hash(alpha)));
      expect(hex(beta)).toBe(hex(vrfProofToHash(pi)));
      expect(vrfVerify(signer.publicKey, pi, new Uint8Array([...alpha, 0]))).toBeNull();
    }
  });
});

/** Microseconds per call of fn, over `n` calls after a few to warm up. */
function perCall(fn: (i: number) => unknown, n: number): number {
  for (let i = 0; i < 20; i++) fn(i);
  const start = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  return ((performance.now() - start) * 1000) / n;
}

describe("cost per call (printed, not judged)", () => {
  it("prove, hash and verify under one signer; the one-shot functions that expand the key each time", () => {
    const signer: VrfSigner = vrfSigner(unhex(first.sk));
    const alphas = Array.from({ length: 256 }, (_, i) => new Uint8Array([i, i >> 8, 7, 7, 7, 7, 7, 7]));
    const proofs = alphas.map((a) => signer.prove(a));
    const n = 200;
    const at = (i: number) => alphas[i % alphas.length] as Uint8Array;
    const us = {
      "signer.prove": perCall((i) => signer.prove(at(i)), n),
      "signer.hash": perCall((i) => signer.hash(at(i)), n),
      vrfVerify: perCall(
        (i) => vrfVerify(signer.publicKey, proofs[i % proofs.length] as Uint8Array, at(i)),
        n,
      ),
      vrfProofToHash: perCall((i) => vrfProofToHash(proofs[i % proofs.length] as Uint8Array), n),
      vrfProve: perCall((i) => vrfProve(unhex(first.sk), at(i)), n),
      vrfHash: perCall((i) => vrfHash(unhex(first.sk), at(i)), n),
    };
    console.log(
      Object.entries(us)
        .map(([name, t]) => `${name}: ${t.toFixed(0)} µs/call (${Math.round(1e6 / t)}/s)`)
        .join("\n"),
    );
    for (const t of Object.values(us)) expect(t).toBeGreaterThan(0);
  });
});
