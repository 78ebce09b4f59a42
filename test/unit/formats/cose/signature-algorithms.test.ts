import { sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { nodeSignatureKey } from "../../../../src/core/node/crypto.js";
import {
  algorithmName,
  algorithmOfKey,
  decodeSign1,
  HEADER,
  verifySign1,
} from "../../../../src/formats/cose/sign1.js";
import { signatureKeyFromJwk } from "../../../../src/formats/crypto/public-key.js";
import { ISSUER_ALGORITHMS, issuerKeyPair, issuerStatement } from "../../../helpers/issuer-keys.js";

// Statements are checked under the algorithm they name, with a key of that algorithm only:
// ES256 (P-256), ES384 (P-384), ES512 (P-521) and EdDSA (Ed25519), by the portable key and
// by node:crypto's alike.
const statement = (key: ReturnType<typeof issuerKeyPair>, alg: number, payload = "{}") =>
  issuerStatement(key, {
    alg,
    kid: "k",
    issuer: "https://issuer.example",
    subject: "s",
    payload: new TextEncoder().encode(payload),
  });

describe("COSE_Sign1 under each issuer algorithm", () => {
  it.each(ISSUER_ALGORITHMS)(
    "$alg: verifies with its key, portable or node:crypto's, and not once changed",
    (a) => {
      const key = issuerKeyPair(a);
      const keys = [signatureKeyFromJwk(key.publicJwk as never), nodeSignatureKey(key.publicKey)];
      const signed = statement(key, a.cose);
      for (const k of keys) {
        expect(algorithmOfKey(k)).toBe(a.alg);
        expect(verifySign1(signed, k)).toBe(true);
        // Another statement's signature over this one's bytes.
        const changed = decodeSign1(statement(key, a.cose, '{"changed":1}'));
        expect(verifySign1({ ...decodeSign1(signed), signature: changed.signature }, k)).toBe(false);
      }
      expect(algorithmName(decodeSign1(signed).protectedHeader.get(HEADER.alg))).toBe(a.alg);
      // The signature's last byte flipped.
      const flipped = Uint8Array.from(signed);
      flipped[flipped.length - 1] = (flipped.at(-1) as number) ^ 1;
      for (const k of keys) expect(verifySign1(flipped, k)).toBe(false);
    },
  );

  it("refuses a statement whose alg is not its key's, even when the signature is that key's over its bytes", () => {
    for (const a of ISSUER_ALGORITHMS)
      for (const other of ISSUER_ALGORITHMS.filter((o) => o.alg !== a.alg)) {
        const key = issuerKeyPair(a);
        // A signature the key made with the digest the header names: an ECDSA key on P-384 does
        // sign SHA-256 digests, but a P-384 key is no ES256 key.
        const hash = a.hash === null ? null : (other.hash ?? a.hash);
        const mislabelled = issuerStatement(
          {
            sign: (data) =>
              new Uint8Array(sign(hash, data, { key: key.privateKey, dsaEncoding: "ieee-p1363" })),
          },
          {
            alg: other.cose,
            kid: "k",
            issuer: "https://issuer.example",
            subject: "s",
            payload: Uint8Array.of(1),
          },
        );
        expect(verifySign1(mislabelled, nodeSignatureKey(key.publicKey)), `${a.alg} as ${other.alg}`).toBe(
          false,
        );
      }
  });

  it("names no algorithm it does not check", () => {
    expect(algorithmName(-257)).toBeUndefined(); // RS256
    expect(algorithmName(-37)).toBeUndefined(); // PS256
    expect(algorithmName(undefined)).toBeUndefined();
  });
});
