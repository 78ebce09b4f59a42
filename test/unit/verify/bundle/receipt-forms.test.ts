import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decodeReceipt } from "../../../../src/formats/cose/index.js";
import { parseBundle, verifyBundle } from "../../../../src/verify/bundle/index.js";

/*
 * A bundle exported by the service before MMR receipts carried the deployed proof form: its
 * receipts wrap `[mmr_index, path]` in a byte string (the profile draft's CDDL). Receipts already
 * issued and kept in bundles must keep verifying after the default changed to the map.
 */
const text = readFileSync(
  new URL("../../../../fixtures/bundles/mmr-bstr-receipts.json", import.meta.url),
  "utf8",
);

describe("bundles from before the deployed MMR proof form", () => {
  it("carry bstr-form MMR receipts", () => {
    const b = parseBundle(text);
    const mmr = b.records.flatMap((r) => r.receipts).filter((r) => r.profile === "mmr");
    expect(mmr.length).toBeGreaterThan(0);
    for (const r of mmr) expect(decodeReceipt(Buffer.from(r.receipt, "base64")).form).toBe("bstr");
  });

  it("still verify, every receipt valid", () => {
    const report = verifyBundle(parseBundle(text));
    // No trust root is given, so the best verdict is self-consistent: nothing tampered.
    expect(report.code, JSON.stringify(report, null, 1)).toBe("self-consistent-unpinned");
    expect(report.records.length).toBe(3);
    for (const r of report.records) for (const x of r.receipts) expect(x.ok).toBe(true);
  });

  it("fail once a bstr receipt's path is changed", () => {
    const b = parseBundle(text);
    const rec = b.records.find((r) => r.receipts.some((x) => x.profile === "mmr"));
    const receipt = rec?.receipts.find((x) => x.profile === "mmr");
    if (!receipt) throw new Error("no mmr receipt");
    const bytes = Buffer.from(receipt.receipt, "base64");
    // The last byte of the signature: the receipt no longer verifies over the recomputed peak.
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1;
    receipt.receipt = bytes.toString("base64");
    expect(verifyBundle(b).code).toBe("tampered");
  });
});
