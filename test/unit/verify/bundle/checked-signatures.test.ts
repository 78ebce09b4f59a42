import { describe, expect, it } from "vitest";
import type { PublicKey } from "../../../../src/formats/crypto/public-key.js";
import { keepingChecks } from "../../../../src/verify/bundle/checked-signatures.js";

describe("keepingChecks", () => {
  it("checks a signature over the same bytes once, and every other anew, keeping failures too", () => {
    const asked: string[] = [];
    const key: PublicKey = {
      jwk: { kty: "EC", crv: "P-256", x: "x", y: "y" },
      verify: (_hash, data, signature) => {
        asked.push(`${data[0]}/${signature[0]}`);
        return signature[0] === 1;
      },
    };
    const kept = keepingChecks(new Map([["k", key]])).get("k") as PublicKey;
    expect(kept.jwk).toBe(key.jwk);
    const data = Uint8Array.of(7);
    expect(kept.verify("sha256", data, Uint8Array.of(1))).toBe(true);
    expect(kept.verify("sha256", data, Uint8Array.of(1))).toBe(true);
    expect(kept.verify("sha256", data, Uint8Array.of(2))).toBe(false);
    expect(kept.verify("sha256", data, Uint8Array.of(2))).toBe(false);
    expect(kept.verify("sha256", Uint8Array.of(8), Uint8Array.of(1))).toBe(true);
    expect(asked).toEqual(["7/1", "7/2", "8/1"]);
  });
});
