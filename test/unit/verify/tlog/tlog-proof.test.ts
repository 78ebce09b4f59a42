import { describe, expect, it } from "vitest";
import { formatTlogProof } from "../../../../src/core/log/tlog-format.js";
import { parseTlogProof } from "../../../../src/formats/tlog/index.js";
import { verifyTlogProof } from "../../../../src/verify/tlog/proof-check.js";
import { inclusionPath } from "./reference-tree.js";
import { checkpointOf, trust } from "./test-log.js";

const path = inclusionPath;

const entries = Array.from({ length: 11 }, (_, i) => new Uint8Array(32).fill(i + 1));
const signed = checkpointOf(entries);
const cosigned = checkpointOf(entries, true);

const proofOf = (index: number, extra?: Uint8Array) =>
  formatTlogProof({ index, path: path(index, entries), checkpoint: cosigned, ...(extra ? { extra } : {}) });

describe("c2sp.org/tlog-proof@v1", () => {
  it("writes the format's lines: header, extra, index, one hash a line, an empty line, the checkpoint verbatim", () => {
    const p = proofOf(6, new TextEncoder().encode("events/x"));
    const lines = p.split("\n");
    expect(lines[0]).toBe("c2sp.org/tlog-proof@v1");
    expect(lines[1]).toBe(`extra ${Buffer.from("events/x").toString("base64")}`);
    expect(lines[2]).toBe("index 6");
    const hashes = path(6, entries).length;
    expect(lines.slice(3, 3 + hashes).every((l) => Buffer.from(l, "base64").length === 32)).toBe(true);
    expect(lines[3 + hashes]).toBe("");
    expect(p.endsWith(cosigned)).toBe(true);
    expect(parseTlogProof(p)).toMatchObject({ index: 6, checkpoint: cosigned });
  });

  it("verifies every entry of the tree, witnessed", () => {
    for (let i = 0; i < entries.length; i++) {
      const v = verifyTlogProof(proofOf(i), [entries[i] as Uint8Array], trust);
      expect(v, String(i)).toMatchObject({ ok: true, index: i, cosigners: ["witness.example/w"] });
    }
  });

  it("fails when anything is changed, or the quorum is not met", () => {
    const good = proofOf(3);
    const leaf = [entries[3] as Uint8Array];
    expect(verifyTlogProof(good, [entries[4] as Uint8Array], trust).ok).toBe(false);
    expect(verifyTlogProof(good.replace("index 3", "index 4"), leaf, trust).ok).toBe(false);
    const lines = good.split("\n");
    const flipped = Buffer.from(lines[2] as string, "base64");
    flipped[0] = (flipped[0] as number) ^ 1;
    lines[2] = flipped.toString("base64");
    expect(verifyTlogProof(lines.join("\n"), leaf, trust).ok).toBe(false);
    expect(verifyTlogProof(good.replace(`\n${entries.length}\n`, "\n12\n"), leaf, trust).ok).toBe(false);
    expect(
      verifyTlogProof(good.replace("c2sp.org/tlog-proof@v1", "c2sp.org/tlog-proof@v2"), leaf, trust),
    ).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not a tlog proof/),
    });
    const unwitnessed = formatTlogProof({ index: 3, path: path(3, entries), checkpoint: signed });
    expect(verifyTlogProof(unwitnessed, leaf, trust).ok).toBe(false);
    expect(verifyTlogProof(unwitnessed, leaf, { ...trust, quorum: 0 }).ok).toBe(true);
  });

  it("refuses malformed proofs by name", () => {
    for (const [bad, why] of [
      ["c2sp.org/tlog-proof@v1\nindex 01\n\nx\n", /index line/],
      ["c2sp.org/tlog-proof@v1\nindex 1\nAAAA\n\nx\n", /not a SHA-256 hash/],
      ["c2sp.org/tlog-proof@v1\nindex 1", /no empty line/],
      ["c2sp.org/tlog-proof@v1\nindex 1\n\n", /no checkpoint/],
    ] as const)
      expect(() => parseTlogProof(bad)).toThrow(why);
  });
});
