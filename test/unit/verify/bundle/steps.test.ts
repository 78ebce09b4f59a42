import { readFileSync } from "node:fs";
import { p256 } from "@noble/curves/nist.js";
import { describe, expect, it } from "vitest";
import type { EvidenceBundle } from "../../../../src/formats/bundle/format.js";
import { type EcJwk, type PublicKey, publicKeyFromJwk } from "../../../../src/formats/crypto/public-key.js";
import { BUNDLE_FAILURES, parseBundle, verifyBundle } from "../../../../src/verify/bundle/index.js";
import { keysFromKeySet } from "../../../../src/verify/receipts/keys.js";
import { noTrust, type TrustRoots } from "../../../../src/verify/verdict/trust.js";

// verifyBundle's steps each name their failures by a code of one closed set, and each signature
// (every seal's, every receipt's) is verified once, whether or not the caller pinned keys.
const text = readFileSync(
  new URL("../../../../fixtures/bundles/mmr-bstr-receipts.json", import.meta.url),
  "utf8",
);

/** Key factory whose keys count every signature verification. */
function counting(): { makeKey: (jwk: EcJwk) => PublicKey; calls: () => number } {
  let calls = 0;
  return {
    makeKey: (jwk) => {
      const key = publicKeyFromJwk(jwk);
      return {
        jwk,
        verify: (hash, data, signature) => {
          calls++;
          return key.verify(hash, data, signature);
        },
      };
    },
    calls: () => calls,
  };
}

const keySet = (b: EvidenceBundle) => Buffer.from(b.keys.cose_key_set, "base64");
const pinnedAsGiven = (b: EvidenceBundle): TrustRoots => ({
  ...noTrust(),
  serviceKeys: keysFromKeySet(keySet(b)),
  described: ["the bundle's own keys, as if fetched"],
});

/** The bundle's key set with each key swapped for a stranger's of the same kid. */
function strangers(b: EvidenceBundle): TrustRoots {
  const own = keysFromKeySet(keySet(b));
  const other = new Map<string, PublicKey>();
  for (const [kid, key] of own) {
    const pub = p256.getPublicKey(p256.utils.randomSecretKey(), false);
    const jwk: EcJwk = {
      ...key.jwk,
      x: Buffer.from(pub.slice(1, 33)).toString("base64url"),
      y: Buffer.from(pub.slice(33)).toString("base64url"),
    };
    other.set(kid, publicKeyFromJwk(jwk));
  }
  return { ...noTrust(), serviceKeys: other, described: ["someone else's keys"] };
}

describe("verifyBundle's steps", () => {
  it("verify each signature once: pinning the keys adds no verification", () => {
    const bare = counting();
    const unpinned = verifyBundle(parseBundle(text), noTrust(), new Date(), bare.makeKey);
    expect(unpinned.code).toBe("self-consistent-unpinned");
    const pinning = counting();
    const b = parseBundle(text);
    const pinned = verifyBundle(b, pinnedAsGiven(b), new Date(), pinning.makeKey);
    expect(pinned.code, JSON.stringify(pinned.problems)).toBe("verified");
    expect(pinned.failures).toEqual([]);
    // Three seals and six receipts: each verified once.
    expect(bare.calls()).toBeGreaterThanOrEqual(9);
    expect(pinning.calls()).toBe(bare.calls());
  });

  it("list each service key once: the bundle's key pinned by value is marked pinned, not listed again", () => {
    const b = parseBundle(text);
    const report = verifyBundle(b, pinnedAsGiven(b));
    const keys = report.trust.fingerprints.filter((f) => f.kind === "cose-key");
    expect(keys.length).toBeGreaterThan(0);
    expect(new Set(keys.map((f) => `${f.id} ${f.fingerprint}`)).size).toBe(keys.length);
    expect(keys.every((f) => f.pinned)).toBe(true);
    // Someone else's key of another kid is listed beside the bundle's, pinned, and the bundle's not.
    const other = verifyBundle(b, strangers(b)).trust.fingerprints.filter((f) => f.kind === "cose-key");
    expect(other.filter((f) => f.pinned).length).toBeGreaterThan(0);
    expect(other.filter((f) => !f.pinned).length).toBe(keys.length);
  });

  it("keys pinned by value that are not the signers' are a policy failure by code, not a tampering", () => {
    const b = parseBundle(text);
    const report = verifyBundle(b, strangers(b));
    expect(report.code).toBe("policy-failed");
    const codes = new Set(report.failures.map((f) => f.code));
    expect([...codes].sort()).toEqual(["NOT_PINNED", "RECEIPTS_NOT_PINNED", "SEALS_NOT_PINNED"]);
    expect(report.failures.every((f) => f.kind === "policy")).toBe(true);
    expect(report.problems).toEqual(report.failures.map((f) => f.detail));
  });

  it("name a changed receipt, a changed service and a stray asset by their codes", () => {
    const b = parseBundle(text);
    const receipt = b.records[0]!.receipts.find((r) => r.profile === "mmr")!;
    const bytes = Buffer.from(receipt.receipt, "base64");
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1;
    receipt.receipt = bytes.toString("base64");
    b.service = "https://elsewhere.example";
    b.assets = [{ identity: "assets/not-in-this-bundle" }];
    const report = verifyBundle(b);
    expect(report.code).toBe("tampered");
    expect(report.failures.map((f) => [f.code, f.kind])).toEqual([
      ["RECEIPT_INVALID", "tampered"],
      ["SERVICE_MISMATCH", "tampered"],
      ["ASSET_UNRELATED", "tampered"],
    ]);
    expect(report.records[0]!.receipts.find((r) => !r.ok)?.failure).toBe("RECEIPT_INVALID");
  });

  it("name a seal that is not signed, and the receipts resting on it", () => {
    const b = parseBundle(text);
    const seal = b.logs[0]!.seals[0]!;
    const bytes = Buffer.from(seal.seal, "base64");
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1;
    seal.seal = bytes.toString("base64");
    const codes = verifyBundle(b).failures.map((f) => f.code);
    expect(codes[0]).toBe("SEAL_UNSIGNED");
    expect(codes.slice(1)).toEqual(b.records.map(() => "RECEIPT_LOG_UNVERIFIED"));
    for (const code of codes) expect(BUNDLE_FAILURES).toContain(code);
  });
});
