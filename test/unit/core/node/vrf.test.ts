import { createPrivateKey, createPublicKey, diffieHellman, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { nativeVindexOutput } from "../../../../src/core/node/vrf.js";
import { expandSecretKey, toCurve } from "../../../../src/formats/vrf/ecvrf.js";
import {
  cofactorHashPointU,
  montgomeryU,
  VrfError,
  vindexOutputFromProof,
  vindexOutputPure,
  vrfVerify,
} from "../../../../src/formats/vrf/index.js";
import { hex, perCall, unhex, VINDEX_VECTORS } from "../../formats/vrf/vindex-vectors.js";

const random = (n: number) => new Uint8Array(randomBytes(n));

describe("nativeVindexOutput", () => {
  it.each(VINDEX_VECTORS)(
    "RFC 9381 B.3 key, alpha '$alpha': the known output, the RFC's public key and proof",
    (v) => {
      const native = nativeVindexOutput(unhex(v.sk));
      const alpha = unhex(v.alpha);
      expect(hex(native.publicKey)).toBe(v.pk);
      expect(hex(native.prove(alpha))).toBe(v.pi);
      expect(hex(native.output(alpha))).toBe(v.output);
      expect(hex(vindexOutputPure(unhex(v.sk), alpha))).toBe(v.output);
    },
  );

  it("200 random keys and alphas: native == pure == fromProof(prove(alpha)), and the proof verifies", () => {
    for (let i = 0; i < 200; i++) {
      const sk = random(32);
      const alpha = random(i % 70);
      const native = nativeVindexOutput(sk);
      const output = hex(native.output(alpha));
      expect(output).toHaveLength(128);
      expect(hex(vindexOutputPure(sk, alpha))).toBe(output);
      const pi = native.prove(alpha);
      expect(vrfVerify(native.publicKey, pi, alpha)).not.toBeNull();
      expect(hex(vindexOutputFromProof(pi))).toBe(output);
    }
  });

  it("one key, many alphas: the key built once serves each in turn", () => {
    const sk = random(32);
    const native = nativeVindexOutput(sk);
    const alphas = Array.from({ length: 20 }, (_, i) => random(i));
    const outputs = alphas.map((a) => hex(native.output(a)));
    expect(new Set(outputs).size).toBe(alphas.length);
    for (const [i, a] of alphas.entries()) expect(hex(vindexOutputPure(sk, a))).toBe(outputs[i]);
  });
});

describe("X25519's clamping changes nothing of the Ed25519 scalar", () => {
  const PKCS8 = "302e020100300506032b656e04220420";
  const SPKI = "302a300506032b656e032100";
  const x25519 = (scalar: Uint8Array, u: Uint8Array) =>
    new Uint8Array(
      diffieHellman({
        privateKey: createPrivateKey({
          key: Buffer.from(PKCS8 + hex(scalar), "hex"),
          format: "der",
          type: "pkcs8",
        }),
        publicKey: createPublicKey({ key: Buffer.from(SPKI + hex(u), "hex"), format: "der", type: "spki" }),
      }),
    );

  it("the clamped scalar's X25519 is u(8·x·H) of the pure path; the reduced x mod q would not be", () => {
    for (let i = 0; i < 20; i++) {
      const sk = random(32);
      const alpha = random(8);
      const { head, x, x8, publicKey } = expandSecretKey(sk);
      const u8h = cofactorHashPointU(publicKey, alpha);
      const u8gamma = x25519(head, u8h);
      expect(hex(u8gamma)).toBe(hex(montgomeryU(toCurve(publicKey, alpha).multiply(x8))));
      expect(hex(nativeVindexOutput(sk).output(alpha))).toBe(hex(vindexOutputPure(sk, alpha)));
      // The bytes of x mod q lack bit 254, which X25519 would set: another multiple, another u.
      const reduced = Uint8Array.from({ length: 32 }, (_, j) => Number((x >> BigInt(8 * j)) & 0xffn));
      expect(hex(x25519(reduced, u8h))).not.toBe(hex(u8gamma));
    }
  });
});

describe("refusals", () => {
  it("a secret key that is not 32 bytes is a VrfError; so is alpha that is not bytes", () => {
    for (const n of [0, 31, 33, 64]) expect(() => nativeVindexOutput(new Uint8Array(n))).toThrow(VrfError);
    const native = nativeVindexOutput(random(32));
    expect(() => native.output("a" as unknown as Uint8Array)).toThrow(VrfError);
    expect(() => native.prove("a" as unknown as Uint8Array)).toThrow(VrfError);
  });

  it("its public key is a copy: writing to it changes no later output", () => {
    const [v] = VINDEX_VECTORS as [(typeof VINDEX_VECTORS)[number]];
    const native = nativeVindexOutput(unhex(v.sk));
    native.publicKey.fill(0);
    expect(hex(native.output(unhex(v.alpha)))).toBe(v.output);
  });
});

describe("cost per call (printed; native judged only against pure)", () => {
  it("native output against the pure one under one key", () => {
    const sk = unhex((VINDEX_VECTORS[0] as (typeof VINDEX_VECTORS)[number]).sk);
    const native = nativeVindexOutput(sk);
    const alphas = Array.from({ length: 256 }, (_, i) => new Uint8Array([i, i >> 8, 7, 7, 7, 7, 7, 7]));
    const at = (i: number) => alphas[i % alphas.length] as Uint8Array;
    const us = {
      "native output": perCall((i) => native.output(at(i)), 2000),
      "pure output": perCall((i) => vindexOutputPure(sk, at(i)), 100),
      "native prove": perCall((i) => native.prove(at(i)), 50),
    };
    console.log(
      Object.entries(us)
        .map(([name, t]) => `${name}: ${t.toFixed(0)} µs/call`)
        .join("\n"),
    );
    expect(us["native output"]).toBeLessThan(us["pure output"]);
  });
});
