import { createHash, createPublicKey, generateKeyPairSync, sign } from "node:crypto";
import { p256 } from "@noble/curves/nist.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  nodePublicKey,
  nodeSha256,
  nodeSignatureKey,
  nodeSignatureKeyFromJwk,
} from "../../../../src/core/node/crypto.js";
import {
  ecJwk,
  isEd25519Key,
  publicKeyFromJwk,
  signatureJwk,
  signatureKeyFromJwk,
} from "../../../../src/formats/crypto/public-key.js";
import { sha256 } from "../../../../src/formats/crypto/sha256.js";

// The portable key (@noble) and node:crypto's must give the same answer for every signature:
// the verifier runs the first in browsers, the service and the CLI the second.
describe("public keys: portable and node:crypto agree", () => {
  it.each(["P-256", "P-384", "P-521"] as const)(
    "%s: both accept the signature and refuse a changed one",
    (curve) => {
      const pair = generateKeyPairSync("ec", { namedCurve: curve });
      const hash = ({ "P-256": "sha256", "P-384": "sha384", "P-521": "sha512" } as const)[curve];
      const portable = publicKeyFromJwk(ecJwk(pair.publicKey.export({ format: "jwk" })));
      const node = nodePublicKey(pair.publicKey);
      expect(portable.jwk).toEqual(node.jwk);
      for (let i = 0; i < 8; i++) {
        const data = new TextEncoder().encode(`message ${i}`);
        const sig = new Uint8Array(sign(hash, data, { key: pair.privateKey, dsaEncoding: "ieee-p1363" }));
        expect([portable.verify(hash, data, sig), node.verify(hash, data, sig)]).toEqual([true, true]);
        const other = new TextEncoder().encode(`message ${i}!`);
        expect([portable.verify(hash, other, sig), node.verify(hash, other, sig)]).toEqual([false, false]);
        expect(portable.verify(hash, data, sig.subarray(1))).toBe(false);
      }
    },
  );

  it("Ed25519: both accept the signature and refuse a changed one or another key's", () => {
    const pair = generateKeyPairSync("ed25519");
    const jwk = signatureJwk(pair.publicKey.export({ format: "jwk" }));
    const portable = signatureKeyFromJwk(jwk);
    const node = nodeSignatureKey(pair.publicKey);
    expect(portable.jwk).toEqual(node.jwk);
    expect(jwk).toEqual({ kty: "OKP", crv: "Ed25519", x: expect.any(String) });
    if (!isEd25519Key(portable) || !isEd25519Key(node)) throw new Error("not Ed25519 keys");
    const other = generateKeyPairSync("ed25519").privateKey;
    for (let i = 0; i < 8; i++) {
      const data = new TextEncoder().encode(`message ${i}`);
      const sig = new Uint8Array(sign(null, data, pair.privateKey));
      expect([portable.verify(data, sig), node.verify(data, sig)]).toEqual([true, true]);
      const changed = new TextEncoder().encode(`message ${i}!`);
      expect([portable.verify(changed, sig), node.verify(changed, sig)]).toEqual([false, false]);
      const theirs = new Uint8Array(sign(null, data, other));
      expect([portable.verify(data, theirs), node.verify(data, theirs)]).toEqual([false, false]);
      expect(portable.verify(data, sig.subarray(1))).toBe(false);
    }
  });

  it("take issuer keys of the kinds a statement may be signed with, and no other", () => {
    for (const curve of ["P-256", "P-384", "P-521"] as const) {
      const jwk = generateKeyPairSync("ec", { namedCurve: curve }).publicKey.export({ format: "jwk" });
      expect(signatureKeyFromJwk(signatureJwk(jwk)).jwk).toEqual(nodeSignatureKeyFromJwk(jwk).jwk);
    }
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ format: "jwk" });
    const x25519 = generateKeyPairSync("x25519").publicKey.export({ format: "jwk" });
    const k256 = generateKeyPairSync("ec", { namedCurve: "secp256k1" }).publicKey.export({ format: "jwk" });
    for (const jwk of [rsa, x25519, k256]) {
      expect(() => signatureJwk(jwk), String(jwk.crv ?? jwk.kty)).toThrow(TypeError);
      expect(() => nodeSignatureKeyFromJwk(jwk), String(jwk.crv ?? jwk.kty)).toThrow(TypeError);
    }
    expect(() => signatureKeyFromJwk({ kty: "OKP", crv: "Ed25519", x: "AAAA" })).toThrow(TypeError);
  });

  it("both accept a high-S signature, as OpenSSL does", () => {
    const secret = p256.utils.randomSecretKey();
    const jwkPoint = p256.getPublicKey(secret, false);
    const size = 32;
    const jwk = {
      kty: "EC" as const,
      crv: "P-256" as const,
      x: Buffer.from(jwkPoint.subarray(1, 1 + size)).toString("base64url"),
      y: Buffer.from(jwkPoint.subarray(1 + size)).toString("base64url"),
    };
    const data = new TextEncoder().encode("high s");
    const low = p256.Signature.fromBytes(p256.sign(data, secret), "compact");
    const high = new p256.Signature(low.r, p256.Point.CURVE().n - low.s).toBytes("compact");
    const portable = publicKeyFromJwk(jwk);
    const node = nodePublicKey(createPublicKey({ key: jwk, format: "jwk" }));
    expect([portable.verify("sha256", data, high), node.verify("sha256", data, high)]).toEqual([true, true]);
  });

  it("refuses a point off the curve and a key of another kind", () => {
    const { publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = ecJwk(publicKey.export({ format: "jwk" }));
    const y = Buffer.from(jwk.y, "base64url");
    y[31] = (y[31] as number) ^ 1;
    expect(() => publicKeyFromJwk({ ...jwk, y: y.toString("base64url") })).toThrow();
    expect(() => ecJwk({ kty: "OKP", crv: "Ed25519", x: "AA" })).toThrow(TypeError);
  });

  it("hash the same with the portable SHA-256 and node:crypto's", () => {
    const parts = [Uint8Array.of(1), new Uint8Array(100).fill(7), new Uint8Array(0)];
    const want = new Uint8Array(createHash("sha256").update(Buffer.concat(parts)).digest());
    expect(sha256(...parts)).toEqual(want);
    expect(nodeSha256(...parts)).toEqual(want);
    expect(sha256(parts[1] as Uint8Array)).toEqual(nodeSha256(parts[1] as Uint8Array));
  });

  it("node:crypto's SHA-256 of any parts is that of their concatenation, and each digest its own", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 9000 }), { maxLength: 6 }), (parts) => {
        const want = new Uint8Array(createHash("sha256").update(Buffer.concat(parts)).digest());
        const got = nodeSha256(...parts);
        // A later call (into the same scratch space, larger than before) leaves this digest alone.
        nodeSha256(new Uint8Array(10_000).fill(9), Uint8Array.of(1));
        expect(got).toEqual(want);
      }),
      { numRuns: 200 },
    );
  });
});
