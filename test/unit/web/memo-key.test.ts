import { describe, expect, it } from "vitest";
import type { EcJwk, PublicKey } from "../../../src/verify/index.js";
import { memoKeyFactory } from "../../../src/web/memo-key.js";

const JWK: EcJwk = { kty: "EC", crv: "P-256", x: "x", y: "y" };

/** A key that answers `valid` for one signature and counts the checks it is asked. */
function countingKey(valid: Uint8Array) {
  const calls: string[] = [];
  const make = (jwk: EcJwk): PublicKey => ({
    jwk,
    verify(hash, data, signature) {
      calls.push(`${hash}:${data.join(",")}:${signature.join(",")}`);
      return signature.every((b, i) => b === valid[i]) && signature.length === valid.length;
    },
  });
  return { make, calls };
}

describe("memoKeyFactory", () => {
  it("checks a signature over the same bytes once, and asks again for any other bytes", () => {
    const { make, calls } = countingKey(Uint8Array.of(1, 2));
    const key = memoKeyFactory(make)(JWK);
    const data = Uint8Array.of(9, 9);
    expect(key.verify("sha256", data, Uint8Array.of(1, 2))).toBe(true);
    expect(key.verify("sha256", Uint8Array.of(9, 9), Uint8Array.of(1, 2))).toBe(true);
    expect(calls).toHaveLength(1);
    // Another signature, other data, another hash: each its own question.
    expect(key.verify("sha256", data, Uint8Array.of(1, 3))).toBe(false);
    expect(key.verify("sha256", Uint8Array.of(9, 8), Uint8Array.of(1, 2))).toBe(true);
    expect(key.verify("sha384", data, Uint8Array.of(1, 2))).toBe(true);
    expect(calls).toHaveLength(4);
    // A failure is remembered as a failure, never turned into a pass.
    expect(key.verify("sha256", data, Uint8Array.of(1, 3))).toBe(false);
    expect(calls).toHaveLength(4);
    expect(key.jwk).toEqual(JWK);
  });

  it("keeps each key's answers to itself", () => {
    const { make, calls } = countingKey(Uint8Array.of(1));
    const factory = memoKeyFactory(make);
    const [a, b] = [factory(JWK), factory({ ...JWK, x: "other" })];
    expect(a.verify("sha256", Uint8Array.of(0), Uint8Array.of(1))).toBe(true);
    expect(b.verify("sha256", Uint8Array.of(0), Uint8Array.of(1))).toBe(true);
    expect(calls).toHaveLength(2);
  });
});
