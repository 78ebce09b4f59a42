import { createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { mlDsa44KeySigner, mlDsa44Keys, mlDsa44Signer } from "../../../src/core/log/ml-dsa-sign.js";
import { ed25519KeySigner, ed25519Signer, signNote } from "../../../src/core/log/note-sign.js";
import { formatCheckpoint } from "../../../src/core/log/tlog-format.js";
import { ed25519Verifier, verifyNote } from "../../../src/formats/tlog/index.js";
import { mlDsa44Verifier } from "../../../src/formats/tlog/ml-dsa.js";
import type { LoadedKey } from "../../../src/keys/keyring.js";
import { CheckpointKeys } from "../../../src/workers/checkpoint.js";

const ORIGIN = "archivist.example/log/7e1b1a52-0000-4000-8000-000000000001";
const TEXT = formatCheckpoint({ origin: ORIGIN, size: 42, root: new Uint8Array(32).fill(7), extensions: [] });
const seed = (b: number) => new Uint8Array(32).fill(b);

/** An Ed25519 key as the keyring loads a file key. */
function ed(privateKey: KeyObject = generateKeyPairSync("ed25519").privateKey): LoadedKey {
  const publicKey = createPublicKey(privateKey);
  const signSync = (data: Uint8Array) => new Uint8Array(sign(null, data, privateKey));
  return {
    purpose: "tlog",
    kid: "k",
    alg: "Ed25519",
    publicKey,
    publicJwk: publicKey.export({ format: "jwk" }) as Record<string, unknown>,
    createdAt: "",
    retiredAt: null,
    signSync,
    sign: async (data) => signSync(data),
  };
}

const seedOf = (k: KeyObject) =>
  new Uint8Array(Buffer.from(k.export({ format: "jwk" }).d as string, "base64url"));

describe("the sealer's checkpoint keys, derived once", () => {
  it("sign with the keyring's signer the very Ed25519 bytes @noble signs (Ed25519 is deterministic)", () => {
    const privateKey = generateKeyPairSync("ed25519").privateKey;
    const [first] = new CheckpointKeys().of([ed(privateKey)], [seed(5)]).ed25519;
    if (!first?.key.signSync) throw new Error("a file key signs synchronously");
    const fromKeyring = signNote(TEXT, [ed25519KeySigner(ORIGIN, first.publicKey, first.key.signSync)]);
    const fromSeed = signNote(TEXT, [ed25519Signer(ORIGIN, seedOf(privateKey))]);
    expect(fromKeyring).toBe(fromSeed);
    expect(verifyNote(fromKeyring, [ed25519Verifier(ORIGIN, first.publicKey)]).verified).toHaveLength(1);
  });

  it("make ML-DSA-44 cosignatures that verify, under the key id the seed's signer names", () => {
    const [mlDsa] = new CheckpointKeys().of([ed()], [seed(9)]).mlDsa;
    if (!mlDsa) throw new Error("one ML-DSA-44 key");
    const signer = mlDsa44KeySigner(ORIGIN, mlDsa, () => 1_700_000_000);
    expect(signer.keyId).toBe(mlDsa44Signer(ORIGIN, seed(9), () => 0).keyId);
    const note = signNote(TEXT, [signer]);
    expect(verifyNote(note, [mlDsa44Verifier(ORIGIN, mlDsa44Keys(seed(9)).publicKey)]).verified).toHaveLength(
      1,
    );
    // Another key's cosignature does not verify as this one's.
    const other = signNote(TEXT, [mlDsa44KeySigner(ORIGIN, mlDsa44Keys(seed(10)), () => 1_700_000_000)]);
    expect(() => verifyNote(other, [mlDsa44Verifier(ORIGIN, mlDsa.publicKey)])).toThrow();
  });

  it("are kept while the keyring hands out the same keys, and derived again when a key changes or a co-signer joins", () => {
    const keys = new CheckpointKeys();
    const a = ed();
    const s = seed(1);
    const first = keys.of([a], [s]);
    expect(keys.of([a], [s])).toBe(first);
    const rotated = keys.of([ed()], [s]);
    expect(rotated).not.toBe(first);
    expect(rotated.ed25519[0]?.publicKey).not.toEqual(first.ed25519[0]?.publicKey);
    const reseeded = keys.of([a], [seed(2)]);
    expect(reseeded.mlDsa[0]?.publicKey).not.toEqual(first.mlDsa[0]?.publicKey);
    const overlap = keys.of([ed(), a], [seed(2), s]);
    expect(overlap.ed25519).toHaveLength(2);
    expect(overlap.mlDsa).toHaveLength(2);
  });
});
