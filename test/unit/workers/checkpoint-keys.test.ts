import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  ed25519KeySigner,
  ed25519Signer,
  ed25519Verifier,
  formatCheckpoint,
  mlDsa44KeySigner,
  mlDsa44Keys,
  mlDsa44Signer,
  signNote,
  verifyNote,
} from "../../../src/core/tlog/index.js";
import { mlDsa44Verifier } from "../../../src/core/tlog/ml-dsa.js";
import { CheckpointKeys, ed25519Seed } from "../../../src/workers/checkpoint.js";

const ORIGIN = "archivist.example/log/7e1b1a52-0000-4000-8000-000000000001";
const TEXT = formatCheckpoint({ origin: ORIGIN, size: 42, root: new Uint8Array(32).fill(7), extensions: [] });
const ed = () => generateKeyPairSync("ed25519").privateKey;
const seed = (b: number) => new Uint8Array(32).fill(b);

describe("the sealer's checkpoint keys, derived once", () => {
  it("sign with node:crypto the very Ed25519 bytes @noble signs (Ed25519 is deterministic)", () => {
    const key = ed();
    const { ed25519 } = new CheckpointKeys().of(key, seed(5));
    const fromNode = signNote(TEXT, [ed25519KeySigner(ORIGIN, ed25519.publicKey, ed25519.sign)]);
    const fromSeed = signNote(TEXT, [ed25519Signer(ORIGIN, ed25519Seed(key))]);
    expect(fromNode).toBe(fromSeed);
    expect(verifyNote(fromNode, [ed25519Verifier(ORIGIN, ed25519.publicKey)]).verified).toHaveLength(1);
  });

  it("make ML-DSA-44 cosignatures that verify, under the key id the seed's signer names", () => {
    const { mlDsa } = new CheckpointKeys().of(ed(), seed(9));
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

  it("are kept while the keyring hands out the same keys, and derived again when a key changes", () => {
    const keys = new CheckpointKeys();
    const a = ed();
    const s = seed(1);
    const first = keys.of(a, s);
    expect(keys.of(a, s)).toBe(first);
    const rotated = keys.of(ed(), s);
    expect(rotated).not.toBe(first);
    expect(rotated.ed25519.publicKey).not.toEqual(first.ed25519.publicKey);
    const reseeded = keys.of(a, seed(2));
    expect(reseeded.mlDsa.publicKey).not.toEqual(first.mlDsa.publicKey);
  });
});
