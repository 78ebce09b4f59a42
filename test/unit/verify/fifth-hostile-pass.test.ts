import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type EvidenceBundle, parseBundle, verifyBundle } from "../../../src/verify/bundle/index.js";
import { encodeCbor, Tagged } from "../../../src/verify/cbor/index.js";
import {
  decodeRfc9162Receipt,
  decodeSign1,
  verifyReceipt,
  verifyRfc9162Receipt,
  verifySign1,
} from "../../../src/verify/cose/index.js";
import { keysFromKeySet, verifyRecordReceipt } from "../../../src/verify/receipts/index.js";
import { noTrust, type TrustRoots } from "../../../src/verify/verdict/index.js";
import { vectorPublicKey } from "../../helpers/vector-key.js";
import { buildFixture } from "./cose/fixture.js";

// A fifth red-team pass over the verifier: hostile inputs made from genuine artefacts, each
// expected to be refused. Earlier passes: test/unit/foundation/third-hostile-pass.test.ts,
// test/integration/foundation/fourth-hostile-pass.test.ts, verify/verdict/forged-records.test.ts.

const fx = buildFixture();
const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const unb64 = (s: string) => new Uint8Array(Buffer.from(s, "base64"));

/** The COSE_Sign1 with `payload` attached in place of what it carried (null for a receipt). */
function withPayload(sign1: Uint8Array, payload: Uint8Array): Uint8Array {
  const s = decodeSign1(sign1);
  return encodeCbor(new Tagged(18, [s.protectedBytes, s.unprotectedHeader, payload, s.signature]));
}

describe("a receipt carrying its signed payload attached instead of detached", () => {
  // A receipt signs the peak (or root) its path leads to, detached: the verifier recomputes it
  // from the leaf. Attached, the genuine peak let the signature verify whatever the leaf.
  const other = new Uint8Array(32).fill(0xee);

  it("an MMR receipt with its own peak attached proves nothing of another leaf", () => {
    expect(verifyReceipt(fx.receipt, fx.leaf, vectorPublicKey).ok).toBe(true);
    const forged = withPayload(fx.receipt, fx.peak);
    expect(verifyReceipt(forged, other, vectorPublicKey)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/does not verify over the recomputed peak/),
    });
    // The genuine leaf still verifies: the attached peak is the one it leads to.
    expect(verifyReceipt(forged, fx.leaf, vectorPublicKey).ok).toBe(true);
  });

  it("verifySign1 refuses an attached payload other than the one the caller checks", () => {
    const attached = withPayload(fx.receipt, fx.peak);
    expect(verifySign1(attached, vectorPublicKey, fx.peak)).toBe(true);
    expect(verifySign1(attached, vectorPublicKey, other)).toBe(false);
    // A statement's own attached payload, when the caller gives none, is what it signs.
    expect(verifySign1(fx.attached, vectorPublicKey)).toBe(true);
  });
});

describe("a bundle whose record was changed under receipts with their roots attached", () => {
  const text = readFileSync(
    new URL("../../../fixtures/bundles/mmr-bstr-receipts.json", import.meta.url),
    "utf8",
  );
  const keys = (b: EvidenceBundle) => keysFromKeySet(unb64(b.keys.cose_key_set));
  const pinnedAsGiven = (b: EvidenceBundle): TrustRoots => ({
    ...noTrust(),
    serviceKeys: keys(b),
    described: ["the service's keys"],
  });

  /** The bundle with record 0 changed, kept with only its RFC 9162 receipt, root attached, and no checkpoint. */
  function forgedBundle(): EvidenceBundle {
    const b = parseBundle(text);
    const entry = b.records[0];
    if (!entry) throw new Error("fixture has no record");
    const genuine = entry.receipts.find((r) => r.profile === "rfc9162");
    if (!genuine) throw new Error("fixture has no rfc9162 receipt");
    const v = verifyRecordReceipt(entry.record, unb64(genuine.receipt), keys(b));
    if (!v.ok) throw new Error(v.reason);
    entry.record = { ...entry.record, asset_attributes: { arc_display_type: "forged" } };
    entry.receipts = [
      { ...genuine, receipt: b64(withPayload(unb64(genuine.receipt), Buffer.from(v.peak, "hex"))) },
    ];
    for (const l of b.logs) delete l.checkpoints;
    return b;
  }

  it("the genuine bundle verifies under its pinned keys (the fixture is right)", () => {
    const b = parseBundle(text);
    expect(verifyBundle(b, pinnedAsGiven(b)).code).toBe("verified");
  });

  it("is refused as RECEIPT_INVALID, both through verifyRecordReceipt and verifyBundle", () => {
    const b = forgedBundle();
    const entry = b.records[0] as EvidenceBundle["records"][number];
    const receipt = unb64((entry.receipts[0] as { receipt: string }).receipt);
    expect(verifyRecordReceipt(entry.record, receipt, keys(b))).toMatchObject({ ok: false });
    const report = verifyBundle(b, pinnedAsGiven(b));
    expect(report.code).toBe("tampered");
    expect(report.failures.map((f) => f.code)).toContain("RECEIPT_INVALID");
  });

  it("an RFC 9162 receipt with its root attached proves nothing of another leaf", () => {
    const b = parseBundle(text);
    const entry = b.records[0] as EvidenceBundle["records"][number];
    const genuine = unb64(
      (entry.receipts.find((r) => r.profile === "rfc9162") as { receipt: string }).receipt,
    );
    const key = keys(b).get(decodeRfc9162Receipt(genuine).kid);
    if (!key) throw new Error("no key");
    const v = verifyRecordReceipt(entry.record, genuine, keys(b));
    if (!v.ok) throw new Error(v.reason);
    const forged = withPayload(genuine, Buffer.from(v.peak, "hex"));
    expect(verifyRfc9162Receipt(forged, Buffer.from(v.leaf, "hex"), key).ok).toBe(true);
    expect(verifyRfc9162Receipt(forged, new Uint8Array(32).fill(7), key).ok).toBe(false);
  });
});
