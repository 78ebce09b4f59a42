import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { nodePublicKey } from "../../../../src/core/node/crypto.js";
import { type CborValue, decodeCbor, encodeCbor } from "../../../../src/formats/cbor/index.js";
import {
  CoseError,
  decodeReceipt,
  decodeSign1,
  HEADER,
  verifyReceipt,
  verifySign1,
} from "../../../../src/formats/cose/index.js";
import { es256KeyPair } from "../../../helpers/es256-key.js";
import { fixtureJson } from "../../../helpers/fixtures.js";
import { hex, unhex } from "./fixture.js";

/*
 * Published receipts whose keys are not published: the RFC 9942 draft's RFC9162_SHA256 examples and a
 * legacy (pre-MMR) DataTrails receipt. Only their structure can be checked, and that nothing crashes.
 */

interface DraftExample {
  hex: string;
  decoded: {
    protected: Record<string, unknown>;
    protectedBytesHex: string;
    unprotectedKeys: number[];
    decodedProofs: Record<string, unknown[]>;
    signatureHex: string;
  };
}
interface Examples {
  rfc9162InclusionReceipt: DraftExample;
  rfc9162ConsistencyReceipt: DraftExample;
  datatrailsLegacyReceipt: {
    hex: string;
    decoded: { protected: Record<string, unknown>; signatureLength: number };
  };
}
const ex = fixtureJson<Examples>("vectors/cose-receipt-examples.json");
const text = (b: CborValue | undefined) => new TextDecoder().decode(b as Uint8Array);

/** The JSON's `h'…'` notation back to bytes, recursively. */
function fromJson(v: unknown): unknown {
  if (typeof v === "string" && v.startsWith("h'")) return unhex(v.slice(2, -1));
  return Array.isArray(v) ? v.map(fromJson) : v;
}

describe("published receipt examples (structure only: no keys are published)", () => {
  it.each([
    ["inclusion", ex.rfc9162InclusionReceipt, -1],
    ["consistency", ex.rfc9162ConsistencyReceipt, -2],
  ] as const)("decodes the RFC 9942 draft %s receipt", (_name, e, proofLabel) => {
    const s = decodeSign1(unhex(e.hex));
    expect(hex(s.protectedBytes)).toBe(e.decoded.protectedBytesHex);
    // The draft's protected map is not in deterministic order: verifying must use the received bytes.
    expect(hex(encodeCbor(s.protectedHeader))).not.toBe(e.decoded.protectedBytesHex);
    expect(s.protectedHeader.get(HEADER.alg)).toBe(-7);
    expect(s.protectedHeader.get(HEADER.vds)).toBe(1);
    expect(text(s.protectedHeader.get(HEADER.kid))).toBe("test-key-1");
    const claims = s.protectedHeader.get(HEADER.cwtClaims) as Map<CborValue, CborValue>;
    expect(claims.get(1)).toBe((e.decoded.protected["15"] as Record<string, string>)["1"]);
    expect([...s.unprotectedHeader.keys()]).toEqual(e.decoded.unprotectedKeys);
    const vdp = s.unprotectedHeader.get(HEADER.vdp) as Map<CborValue, CborValue>;
    const proofs = (vdp.get(proofLabel) as Uint8Array[]).map((p) => decodeCbor(p));
    expect(proofs).toEqual(fromJson(e.decoded.decodedProofs[String(proofLabel)]));
    expect(s.payload).toBeNull();
    expect(hex(s.signature)).toBe(e.decoded.signatureHex);
  });

  it("refuses the RFC9162_SHA256 examples as MMR receipts, without crashing", () => {
    const someKey = es256KeyPair().publicKey;
    for (const e of [ex.rfc9162InclusionReceipt, ex.rfc9162ConsistencyReceipt]) {
      expect(() => decodeReceipt(unhex(e.hex))).toThrow(CoseError);
      const v = verifyReceipt(unhex(e.hex), new Uint8Array(32), someKey);
      expect(v.ok).toBe(false);
      expect(v.ok ? "" : v.reason).toMatch(/\S/);
    }
  });

  it("decodes the legacy DataTrails receipt (ES384, labels 390/391, attached payload)", () => {
    const bytes = unhex(ex.datatrailsLegacyReceipt.hex);
    const s = decodeSign1(bytes);
    const p = ex.datatrailsLegacyReceipt.decoded.protected;
    expect(s.protectedHeader.get(HEADER.alg)).toBe(-35);
    expect(s.protectedHeader.get(390)).toBe(p["390"]);
    expect(s.protectedHeader.get(391)).toBe(p["391"]);
    expect(s.unprotectedHeader.size).toBe(0);
    expect(s.payload?.length).toBe(37143);
    expect(s.signature.length).toBe(ex.datatrailsLegacyReceipt.decoded.signatureLength);
    const p384 = nodePublicKey(generateKeyPairSync("ec", { namedCurve: "P-384" }).publicKey);
    expect(verifySign1(bytes, p384)).toBe(false);
    expect(() => decodeReceipt(bytes)).toThrow(CoseError);
  });
});
