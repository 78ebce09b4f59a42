import { randomBytes } from "node:crypto";
import type { EdwardsPoint } from "@noble/curves/abstract/edwards.js";
import { ed25519, x25519 } from "@noble/curves/ed25519.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { expandSecretKey, toCurve } from "../../../../src/formats/vrf/ecvrf.js";
import {
  cofactorHashPointU,
  montgomeryU,
  VINDEX_OUTPUT_TAG,
  VrfError,
  vindexOutputFromProof,
  vindexOutputPure,
  vrfProve,
  vrfPublicKey,
  vrfVerify,
} from "../../../../src/formats/vrf/index.js";
import { affineU, candidatePoint, legendre } from "../../../../src/formats/vrf/montgomery.js";
import { hex, perCall, SMALL_ORDER, unhex, VINDEX_VECTORS } from "./vindex-vectors.js";

const Point = ed25519.Point;
const Fp = Point.Fp;
const L = Point.Fn.ORDER;
const le = (b: Uint8Array) => b.reduceRight((n, v) => (n << 8n) | BigInt(v), 0n);
const le32 = (n: bigint) => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));
const random = (n: number) => new Uint8Array(randomBytes(n));

/** RFC 7748's decodeScalar25519 clamping, applied to a copy. */
function x25519Clamped(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  out[0] = (out[0] as number) & 248;
  out[31] = ((out[31] as number) & 127) | 64;
  return out;
}

/** u = (1 + y)/(1 − y) from the affine y. */
const uOf = (p: EdwardsPoint) => {
  const { y } = p.toAffine();
  return le32(Fp.div(Fp.add(1n, y), Fp.sub(1n, y)));
};

/**
 * The output by noble's Point API step by step, sharing no code with the module: RFC 8032's secret
 * scalar, RFC 9381's try-and-increment with a strict decode, Gamma = x·H, then 8·Gamma's u.
 */
function referenceVindex(skHex: string, alphaHex: string) {
  const head = x25519Clamped(sha512(unhex(skHex)).slice(0, 32));
  const x = le(head) % L;
  const pk = Point.BASE.multiply(x).toBytes();
  let h: EdwardsPoint | undefined;
  for (let ctr = 0; ctr < 256 && h === undefined; ctr++) {
    const candidate = sha512(new Uint8Array([3, 1, ...pk, ...unhex(alphaHex), ctr, 0])).subarray(0, 32);
    let p: EdwardsPoint;
    try {
      p = Point.fromBytes(candidate, false);
    } catch {
      continue;
    }
    if (!p.multiply(8n).is0()) h = p.multiply(8n);
  }
  if (h === undefined) throw new Error("no H");
  const gamma = h.multiply(x);
  const u8gamma = uOf(gamma.multiply(8n));
  const output = sha512(new Uint8Array([...new TextEncoder().encode("vindex/v1 output"), ...u8gamma]));
  return { head, pk, gamma: gamma.toBytes(), u8h: uOf(h.multiply(8n)), u8gamma, output };
}

describe("known answers on RFC 9381's B.3 keys", () => {
  it.each(VINDEX_VECTORS)(
    "alpha '$alpha': the step-by-step reference gives the table, anchored on the RFC's Gamma",
    (v) => {
      const r = referenceVindex(v.sk, v.alpha);
      expect(hex(r.pk)).toBe(v.pk);
      expect(hex(r.gamma)).toBe(v.pi.slice(0, 64));
      expect([hex(r.u8h), hex(r.u8gamma), hex(r.output)]).toEqual([v.u8h, v.u8gamma, v.output]);
      // noble's own Edwards-to-Montgomery map, and its X25519 of the clamped scalar, agree.
      expect(hex(ed25519.utils.toMontgomery(Point.fromBytes(r.gamma).multiply(8n).toBytes()))).toBe(
        v.u8gamma,
      );
      expect(hex(x25519.scalarMult(r.head, r.u8h))).toBe(v.u8gamma);
    },
  );

  it.each(VINDEX_VECTORS)("alpha '$alpha': the module gives the table", (v) => {
    const alpha = unhex(v.alpha);
    expect(hex(cofactorHashPointU(unhex(v.pk), alpha))).toBe(v.u8h);
    expect(hex(vindexOutputPure(unhex(v.sk), alpha))).toBe(v.output);
    expect(hex(vindexOutputFromProof(unhex(v.pi)))).toBe(v.output);
    expect(hex(vrfVerify(unhex(v.pk), unhex(v.pi), alpha) ?? new Uint8Array())).toBe(v.beta);
    expect(v.output).not.toBe(v.beta);
  });

  it("the tag is the UTF-8 of 'vindex/v1 output'", () => {
    expect(hex(VINDEX_OUTPUT_TAG)).toBe(Buffer.from("vindex/v1 output", "utf8").toString("hex"));
  });
});

describe("the pure paths agree over random keys and alphas", () => {
  it("200 keys: pure == fromProof(prove) == SHA-512(tag ‖ X25519(clamped scalar, u(8·H)))", () => {
    for (let i = 0; i < 200; i++) {
      const sk = random(32);
      const alpha = random(i % 70);
      const { head, publicKey } = expandSecretKey(sk);
      // The claim the native path rests on: RFC 8032 clamps as RFC 7748 does.
      expect(hex(x25519Clamped(head))).toBe(hex(head));
      const u8h = cofactorHashPointU(publicKey, alpha);
      expect(hex(u8h)).toBe(hex(montgomeryU(toCurve(publicKey, alpha).multiply(8n))));
      const tagged = new Uint8Array([...VINDEX_OUTPUT_TAG, ...x25519.scalarMult(head, u8h)]);
      const output = hex(vindexOutputPure(sk, alpha));
      expect(output).toBe(hex(sha512(tagged)));
      const pi = vrfProve(sk, alpha);
      expect(vrfVerify(publicKey, pi, alpha)).not.toBeNull();
      expect(hex(vindexOutputFromProof(pi))).toBe(output);
    }
  });
});

// Encodings at the edges of RFC 8032's strict decode: y ≥ p, and x = 0 (y = ±1) with its sign bit.
const EDGES = [
  `ed${"ff".repeat(30)}7f`, // y = p
  `ee${"ff".repeat(30)}7f`, // y = p + 1
  `${"ff".repeat(31)}7f`, // y = 2^255 − 1
  `ed${"ff".repeat(31)}`, // y = p, sign set
  `01${"00".repeat(31)}`, // the identity
  `01${"00".repeat(30)}80`, // the identity, sign set
  `ec${"ff".repeat(30)}7f`, // y = −1, order 2
  `ec${"ff".repeat(31)}`, // y = −1, sign set
  "00".repeat(32), // y = 0, order 4
  `${"00".repeat(31)}80`, // y = 0, the other x
  `02${"00".repeat(31)}`, // y = 2: no x
];

describe("the x-only candidate test judges as the strict decode does", () => {
  const decode = (bytes: Uint8Array) => {
    try {
      return Point.fromBytes(bytes, false);
    } catch {
      return undefined;
    }
  };

  it("on the edge encodings and 3000 random strings, with the same u where one decodes", () => {
    const inputs = [...EDGES.map(unhex), ...Array.from({ length: 3000 }, () => random(32))];
    let decoded = 0;
    for (const bytes of inputs) {
      const point = decode(bytes);
      const candidate = candidatePoint(bytes);
      expect(candidate === undefined, hex(bytes)).toBe(point === undefined);
      if (point === undefined || candidate === undefined) continue;
      decoded++;
      const u = affineU(candidate);
      expect(u === undefined ? undefined : hex(u)).toBe(point.is0() ? undefined : hex(montgomeryU(point)));
    }
    expect(decoded).toBeGreaterThan(1200);
  });

  it("legendre is Euler's criterion", () => {
    const E = (Fp.ORDER - 1n) / 2n;
    const euler = (a: bigint) => {
      const e = Fp.pow(a, E);
      return e === 0n ? 0 : e === 1n ? 1 : -1;
    };
    const values = [
      0n,
      1n,
      2n,
      Fp.ORDER - 1n,
      4n,
      ...Array.from({ length: 500 }, () => le(random(32)) % Fp.ORDER),
    ];
    for (const a of values) expect(legendre(a), a.toString()).toBe(euler(a));
  });
});

describe("refusals are VrfErrors, not crashes", () => {
  const [v] = VINDEX_VECTORS as [(typeof VINDEX_VECTORS)[number]];
  const PI = unhex(v.pi);
  const withGamma = (gamma: Uint8Array) => {
    const pi = PI.slice();
    pi.set(gamma, 0);
    return pi;
  };

  it("vindexOutputFromProof on a malformed proof: lengths, no point, non-canonical Gamma, s ≥ q, not bytes", () => {
    const sPastQ = PI.slice();
    sPastQ.set(le32(L), 48);
    const bad = [
      new Uint8Array(0),
      PI.subarray(0, 79),
      new Uint8Array([...PI, 0]),
      new Uint8Array(80).fill(0xff),
      withGamma(unhex(`02${"00".repeat(31)}`)),
      withGamma(unhex(`ee${"ff".repeat(30)}7f`)),
      withGamma(unhex(`01${"00".repeat(30)}80`)),
      sPastQ,
    ];
    for (const pi of bad) expect(() => vindexOutputFromProof(pi), hex(pi)).toThrow(VrfError);
    expect(() => vindexOutputFromProof("pi" as unknown as Uint8Array)).toThrow(VrfError);
  });

  it("a Gamma of small order, whose 8·Gamma has no u", () => {
    for (const h of SMALL_ORDER)
      expect(() => vindexOutputFromProof(withGamma(unhex(h))), h).toThrow(VrfError);
    expect(() => montgomeryU(Point.ZERO)).toThrow(VrfError);
  });

  it("a Gamma moved by a point of small order gives the same output: why 8·Gamma is hashed", () => {
    const moved = Point.fromBytes(PI.subarray(0, 32)).add(Point.fromHex(SMALL_ORDER[4] as string));
    expect(hex(vindexOutputFromProof(withGamma(moved.toBytes())))).toBe(v.output);
  });

  it("a key or alpha of the wrong kind", () => {
    for (const n of [0, 31, 33]) {
      expect(() => vindexOutputPure(new Uint8Array(n), new Uint8Array())).toThrow(VrfError);
      expect(() => cofactorHashPointU(new Uint8Array(n), new Uint8Array())).toThrow(VrfError);
    }
    expect(() => cofactorHashPointU(unhex(v.pk), "a" as unknown as Uint8Array)).toThrow(VrfError);
    expect(() => vindexOutputPure(unhex(v.sk), "a" as unknown as Uint8Array)).toThrow(VrfError);
  });
});

describe("cost per call (printed, not judged)", () => {
  it("the pure output, the output of a proof, and u(8·H), the native path's share", () => {
    const sk = unhex((VINDEX_VECTORS[0] as (typeof VINDEX_VECTORS)[number]).sk);
    const pk = vrfPublicKey(sk);
    const alphas = Array.from({ length: 256 }, (_, i) => new Uint8Array([i, i >> 8, 7, 7, 7, 7, 7, 7]));
    const proofs = alphas.map((a) => vrfProve(sk, a));
    const at = (i: number) => alphas[i % alphas.length] as Uint8Array;
    const us = {
      vindexOutputPure: perCall((i) => vindexOutputPure(sk, at(i)), 100),
      vindexOutputFromProof: perCall(
        (i) => vindexOutputFromProof(proofs[i % proofs.length] as Uint8Array),
        300,
      ),
      cofactorHashPointU: perCall((i) => cofactorHashPointU(pk, at(i)), 1000),
    };
    console.log(
      Object.entries(us)
        .map(([name, t]) => `${name}: ${t.toFixed(0)} µs/call`)
        .join("\n"),
    );
    for (const t of Object.values(us)) expect(t).toBeGreaterThan(0);
  });
});
