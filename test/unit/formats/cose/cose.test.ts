import { describe, expect, it } from "vitest";
import { appendLeaves, peakHashes } from "../../../../src/core/log/mmr-append.js";
import { buildReceipt } from "../../../../src/core/log/receipt.js";
import { ReceiptHeaders } from "../../../../src/core/log/receipt-headers.js";
import { buildSeal } from "../../../../src/core/log/seal.js";
import { type Signer, signSign1, sigStructure } from "../../../../src/core/log/sign1.js";
import { decodeCbor } from "../../../../src/formats/cbor/index.js";
import {
  coseKeySet,
  decodeReceipt,
  decodeSeal,
  decodeSign1,
  publicKeyFromCoseKey,
  verifyReceipt,
  verifySeal,
  verifySign1,
} from "../../../../src/formats/cose/index.js";
import { includedRoot, inclusionProof } from "../../../../src/formats/mmr/index.js";
import { es256KeyPair } from "../../../helpers/es256-key.js";
import { fixtureJson } from "../../../helpers/fixtures.js";
import { deterministicSigner, vectorPublicKey } from "../../../helpers/vector-key.js";

interface Vectors {
  key: { d: string; publicJwk: { kty: string; crv: string; x: string; y: string } };
  statements: Record<
    string,
    {
      protectedHeaderHex: string;
      sigStructureHex: string;
      signatureHex: string;
      coseSign1AttachedHex: string;
      coseSign1DetachedHex: string;
    }
  >;
  preimage: { sha256: string };
}
const v = fixtureJson<Vectors>("vectors/signed-statement-generated.json");
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const bytes = (h: string) => new Uint8Array(Buffer.from(h, "hex"));
const vectorKey = vectorPublicKey;
const deterministic = deterministicSigner;

describe("COSE_Sign1", () => {
  it("re-signs the generated statements to the same bytes and verifies them", () => {
    for (const s of Object.values(v.statements)) {
      const decoded = decodeSign1(bytes(s.coseSign1AttachedHex));
      expect(hex(decoded.protectedBytes)).toBe(s.protectedHeaderHex);
      const again = signSign1(
        { protectedHeader: decoded.protectedHeader, payload: decoded.payload as Uint8Array },
        deterministic,
      );
      expect(hex(again)).toBe(s.coseSign1AttachedHex);
      const detached = signSign1(
        { protectedHeader: decoded.protectedHeader, payload: bytes(v.preimage.sha256), detached: true },
        deterministic,
      );
      expect(hex(detached)).toBe(s.coseSign1DetachedHex);
      expect(verifySign1(bytes(s.coseSign1AttachedHex), vectorKey)).toBe(true);
      expect(verifySign1(bytes(s.coseSign1DetachedHex), vectorKey, bytes(v.preimage.sha256))).toBe(true);
      expect(verifySign1(bytes(s.coseSign1DetachedHex), vectorKey)).toBe(false);
    }
  });

  it("fails verification after any byte of the protected header, payload or signature changes", () => {
    const s = Object.values(v.statements)[0];
    const good = bytes(s?.coseSign1AttachedHex ?? "");
    let rejected = 0;
    for (let i = 4; i < good.length; i++) {
      const bad = new Uint8Array(good);
      bad[i] = (bad[i] as number) ^ 0x01;
      if (!verifySign1(bad, vectorKey)) rejected++;
    }
    expect(rejected).toBe(good.length - 4);
  });

  it("gives a signer of its own bytes to keep, and signs what sigStructure describes", () => {
    // Signing writes the Sig_structure in a reused scratch buffer: a signer that keeps its input
    // (a queue, a log, a remote signer called later) must not see it overwritten by the next message.
    const kept: Uint8Array[] = [];
    const keeping: Signer = (toBeSigned) => {
      kept.push(toBeSigned);
      return deterministic(toBeSigned);
    };
    const decoded = decodeSign1(bytes(Object.values(v.statements)[0]?.coseSign1AttachedHex ?? ""));
    const payloads = [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)];
    for (const payload of payloads) signSign1({ protectedHeader: decoded.protectedHeader, payload }, keeping);
    expect(kept.map(hex)).toEqual(payloads.map((p) => hex(sigStructure(decoded.protectedBytes, p))));
  });
});

describe("receipts and seals", () => {
  const { privateKey, publicKey } = es256KeyPair();
  const leaves = Array.from({ length: 11 }, (_, i) => new Uint8Array(32).fill(i + 1));
  const built = appendLeaves(0, leaves, () => new Uint8Array());
  const node = (i: number) => built.nodes[i] as Uint8Array;

  it("issues a receipt that verifies for the right leaf and fails for any other", () => {
    const size = built.newSize;
    const mmrIndex = built.leafIndices[5] as number;
    const path = inclusionProof(size, mmrIndex, node);
    const peak = includedRoot(mmrIndex, node(mmrIndex), path);
    expect(peakHashes(size, node).some((p) => hex(p) === hex(peak))).toBe(true);
    const receipt = buildReceipt(
      { kid: "k1", issuer: "https://archivist.example", subject: "tenant/x", mmrIndex, path, peak },
      privateKey,
    );
    const ok = verifyReceipt(receipt, node(mmrIndex), publicKey);
    expect(ok.ok).toBe(true);
    expect(decodeReceipt(receipt)).toMatchObject({
      kid: "k1",
      issuer: "https://archivist.example",
      subject: "tenant/x",
      mmrIndex,
    });
    expect(verifyReceipt(receipt, node(built.leafIndices[4] as number), publicKey).ok).toBe(false);
    const other = es256KeyPair().publicKey;
    expect(verifyReceipt(receipt, node(mmrIndex), other).ok).toBe(false);
  });

  it("gives each receipt the header of its own log, whichever logs came before", () => {
    // Encoded protected headers are reused per (kid, issuer, subject) by the caller's ReceiptHeaders;
    // interleave logs whose parts differ in one field or only in where one part ends and the next begins.
    const logs = [
      { kid: "k1", issuer: "https://a.example", subject: "tenant/x" },
      { kid: "k1", issuer: "https://a.example", subject: "tenant/y" },
      { kid: "k2", issuer: "https://a.example", subject: "tenant/x" },
      { kid: "k1", issuer: "https://b.example", subject: "tenant/x" },
      { kid: "k1x", issuer: "https://a.example", subject: "tenant/" },
      { kid: "k1", issuer: "xhttps://a.example", subject: "tenant/" },
    ];
    const mmrIndex = built.leafIndices[3] as number;
    const path = inclusionProof(built.newSize, mmrIndex, node);
    const peak = includedRoot(mmrIndex, node(mmrIndex), path);
    const headers = new ReceiptHeaders();
    const signer = privateKey;
    for (const log of [...logs, ...logs.toReversed(), ...logs]) {
      const receipt = buildReceipt({ ...log, mmrIndex, path, peak }, signer, headers);
      expect(decodeReceipt(receipt)).toMatchObject(log);
      expect(verifyReceipt(receipt, node(mmrIndex), publicKey).ok).toBe(true);
      const unkept = buildReceipt({ ...log, mmrIndex, path, peak }, privateKey);
      expect(decodeSign1(unkept).protectedBytes).toEqual(decodeSign1(receipt).protectedBytes);
    }
  });

  it("seals an MMR state and reads it back", () => {
    const peaks = peakHashes(built.newSize, node);
    const seal = buildSeal(
      {
        kid: "k1",
        issuer: "https://a.example",
        logId: "tenant/x",
        state: {
          mmrSize: built.newSize,
          timestampMs: 1700000000000,
          idtimestamp: 0x8fa97ef269039b00n,
          epoch: 1,
          peaks,
        },
      },
      privateKey,
    );
    expect(verifySeal(seal, publicKey)).toBe(true);
    const state = decodeSeal(seal);
    expect(state.mmrSize).toBe(built.newSize);
    expect(state.idtimestamp).toBe(0x8fa97ef269039b00n);
    expect(state.peaks.map(hex)).toEqual(peaks.map(hex));
    expect(state.logId).toBe("tenant/x");
  });

  it("publishes keys as a COSE_KeySet that reads back", () => {
    const set = decodeCbor(coseKeySet([{ jwk: publicKey.jwk, kid: "k1" }]));
    expect(Array.isArray(set)).toBe(true);
    const k = publicKeyFromCoseKey((set as Array<Map<number, unknown>>)[0] as never);
    expect(k?.kid).toBe("k1");
    expect(k?.publicKey.jwk).toEqual(publicKey.jwk);
  });
});

describe("decoder fuzzing", () => {
  it("never throws anything but typed errors and never verifies garbage or mutations", () => {
    let seed = 42;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    const base = bytes(Object.values(v.statements)[0]?.coseSign1AttachedHex ?? "");
    for (let n = 0; n < 3000; n++) {
      const input =
        n % 2 === 0
          ? new Uint8Array(Array.from({ length: rand() % 200 }, () => rand() % 256))
          : new Uint8Array(base);
      if (n % 2 === 1) for (let k = 0; k < 1 + (rand() % 3); k++) input[rand() % input.length] = rand() % 256;
      expect(verifySign1(input, vectorKey)).toBe(hex(input) === hex(base));
      try {
        decodeSign1(input);
      } catch (err) {
        expect((err as { code?: string }).code).toMatch(/^COSE_/);
      }
      expect(verifyReceipt(input, new Uint8Array(32), vectorKey).ok).toBe(false);
    }
  });
});
