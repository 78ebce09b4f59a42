import { encode, rfc8949EncodeOptions } from "cborg";
import { describe, expect, it } from "vitest";
import { buildReceipt } from "../../../../src/core/log/receipt.js";
import { buildSeal } from "../../../../src/core/log/seal.js";
import { sigStructure } from "../../../../src/core/log/sign1.js";
import { eventToStatement } from "../../../../src/core/scitt/index.js";
import { decodeSign1, verifyReceipt } from "../../../../src/formats/cose/index.js";
import { es256KeyPair } from "../../../helpers/es256-key.js";
import { fixtureJson } from "../../../helpers/fixtures.js";
import { vectorPublicKey } from "../../../helpers/vector-key.js";
import { hex, payloadHash, statementOptions, unhex, vectorEvent } from "./fixture.js";
import {
  draftIncludedRoot,
  handSigStructure,
  nobleVerify,
  readInclusionProof,
  readSign1,
} from "./independent.js";

interface Kat {
  nodes: Array<{ mmrIndex: number; value: string }>;
  inclusionProofs: {
    rows: Array<{ mmrIndex: number; mmrSize: number; path: string[]; includedRoot: string }>;
  };
}
interface StatementVectors {
  statements: Record<
    string,
    { protectedHeaderHex: string; sigStructureHex: string; coseSign1AttachedHex: string }
  >;
}
const kat = fixtureJson<Kat>("vectors/mmr-kat39.json");
const vectors = fixtureJson<StatementVectors>("vectors/signed-statement-generated.json");
const node = (i: number) => unhex(kat.nodes[i]?.value ?? "");
const service = es256KeyPair();
const receiptInput = { kid: "svc-1", issuer: "https://archivist.example", subject: "tenant/t" };

describe("cross-check with an independent verifier (noble ECDSA, hand-built Sig_structure, BigInt MMR)", () => {
  it("computes the vectors' Sig_structure, which the independent ECDSA accepts", () => {
    for (const s of Object.values(vectors.statements)) {
      const decoded = decodeSign1(unhex(s.coseSign1AttachedHex));
      const ours = sigStructure(decoded.protectedBytes, decoded.payload as Uint8Array);
      expect(hex(ours)).toBe(s.sigStructureHex);
      expect(hex(handSigStructure(decoded.protectedBytes, payloadHash))).toBe(s.sigStructureHex);
      expect(nobleVerify(unhex(s.coseSign1AttachedHex), vectorPublicKey)).toBe(true);
    }
  });

  it.each([
    ["private-labels", false],
    ["private-labels", true],
    ["rfc9995", false],
    ["rfc9995", true],
  ] as const)(
    "statements (%s, detached %s) signed with node:crypto verify independently",
    (form, detached) => {
      const issuer = es256KeyPair();
      const bytes = eventToStatement(vectorEvent, { ...statementOptions, form, detached }, issuer.privateKey);
      const s = readSign1(bytes);
      expect(s.payload === null).toBe(detached);
      expect(s.signature.length).toBe(64);
      expect(s.protectedHeader.get(1)).toBe(-7);
      expect(new TextDecoder().decode(s.protectedHeader.get(4) as Uint8Array)).toBe(statementOptions.kid);
      const claims = s.protectedHeader.get(15) as Map<number, string>;
      expect([claims.get(1), claims.get(2)]).toEqual([statementOptions.issuer, vectorEvent.subject]);
      // Deterministic: the independent RFC 8949 encoder writes the same protected bytes.
      expect(hex(encode(s.protectedHeader, rfc8949EncodeOptions))).toBe(hex(s.protectedBytes));
      expect(nobleVerify(bytes, issuer.publicKey, payloadHash)).toBe(true);
      // Another payload given is refused, attached or not: the given payload is the one checked.
      expect(nobleVerify(bytes, issuer.publicKey, new Uint8Array(32))).toBe(false);
      expect(nobleVerify(bytes, issuer.publicKey)).toBe(!detached);
      expect(nobleVerify(bytes, service.publicKey, payloadHash)).toBe(false);
    },
  );

  it.each([
    ["the deployed map (the default)", undefined, "map"],
    ["the draft's bstr (on request)", "bstr", "bstr"],
  ] as const)(
    "receipts with %s carry the MMR-profile headers and verify independently over the recomputed peak",
    (_name, form, read) => {
      const rows = kat.inclusionProofs.rows.filter((r) => r.path.length >= 2).slice(0, 6);
      expect(rows.length).toBe(6);
      for (const row of rows) {
        const path = row.path.map(unhex);
        const peak = unhex(row.includedRoot);
        const receipt = buildReceipt(
          { ...receiptInput, mmrIndex: row.mmrIndex, path, peak, ...(form ? { form } : {}) },
          service.privateKey,
        );
        const s = readSign1(receipt);
        expect(s.payload).toBeNull();
        expect([...s.protectedHeader.keys()]).toEqual([1, 4, 15, 395]);
        expect(s.protectedHeader.get(395)).toBe(3);
        expect([...s.unprotected.keys()]).toContain(396);
        const proof = readInclusionProof(s);
        expect(proof.form).toBe(read);
        expect(proof.index).toBe(row.mmrIndex);
        const again = draftIncludedRoot(proof.index, node(row.mmrIndex), proof.path);
        expect(hex(again)).toBe(row.includedRoot);
        expect(nobleVerify(receipt, service.publicKey, again)).toBe(true);
        const wrongLeaf = draftIncludedRoot(proof.index, node(row.mmrIndex + 1), proof.path);
        expect(nobleVerify(receipt, service.publicKey, wrongLeaf)).toBe(false);
      }
    },
  );

  it("every KAT39 inclusion path makes a receipt that verifyReceipt accepts, reaching the published peak", () => {
    const rows = kat.inclusionProofs.rows;
    expect(rows.length).toBe(417);
    const refused: string[] = [];
    for (const row of rows) {
      const path = row.path.map(unhex);
      const peak = unhex(row.includedRoot);
      expect(hex(draftIncludedRoot(row.mmrIndex, node(row.mmrIndex), path))).toBe(row.includedRoot);
      const receipt = buildReceipt(
        { ...receiptInput, mmrIndex: row.mmrIndex, path, peak },
        service.privateKey,
      );
      const v = verifyReceipt(receipt, node(row.mmrIndex), service.publicKey);
      if (!v.ok || hex(v.peak) !== row.includedRoot) refused.push(`${row.mmrIndex}@${row.mmrSize}`);
      if (row.mmrSize % 3 !== 0) continue;
      const other = node((row.mmrIndex + 1) % kat.nodes.length);
      if (verifyReceipt(receipt, other, service.publicKey).ok)
        refused.push(`${row.mmrIndex} accepted a wrong leaf`);
    }
    expect(refused).toEqual([]);
  });

  it("seals carry the CBOR MMR state and verify independently", () => {
    const peaks = [node(30), node(37), node(38)];
    const state = {
      mmrSize: 39,
      timestampMs: 1_700_000_000_123,
      idtimestamp: 0x8fa97ef269039b00n,
      epoch: 1,
      peaks,
    };
    const seal = buildSeal(
      { kid: "svc-1", issuer: receiptInput.issuer, logId: "tenant/t", state },
      service.privateKey,
    );
    const s = readSign1(seal);
    expect(s.protectedHeader.get(1)).toBe(-7);
    const claims = s.protectedHeader.get(15) as Map<number, string>;
    expect([claims.get(1), claims.get(2)]).toEqual([receiptInput.issuer, "tenant/t"]);
    const expected = encode(
      new Map<number, unknown>([
        [1, 39],
        [3, 1_700_000_000_123],
        [4, 0x8fa97ef269039b00n],
        [6, 1],
        [7, 2],
        [8, peaks],
      ]),
      rfc8949EncodeOptions,
    );
    expect(hex(s.payload as Uint8Array)).toBe(hex(expected));
    expect(nobleVerify(seal, service.publicKey)).toBe(true);
    expect(nobleVerify(seal, vectorPublicKey)).toBe(false);
  });
});
