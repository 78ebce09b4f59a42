import { describe, expect, it } from "vitest";
import { buildRfc9162Receipt } from "../../../../src/core/log/receipt.js";
import { appendLeafHashes } from "../../../../src/core/log/tree-append.js";
import {
  decodeRfc9162Receipt,
  receiptVds,
  verifyRfc9162Receipt,
} from "../../../../src/formats/cose/index.js";
import { inclusionProof, leafHash, treeRoot } from "../../../../src/formats/rfc9162/index.js";
import { es256KeyPair } from "../../../helpers/es256-key.js";
import { fixtureJson } from "../../../helpers/fixtures.js";

const ex = fixtureJson<{ rfc9162InclusionReceipt: { hex: string } }>("vectors/cose-receipt-examples.json");

describe("RFC9162_SHA256 receipts (vds 1)", () => {
  it("reads the RFC 9942 draft's example inclusion receipt: [tree_size 5, leaf_index 3, 3-hash path]", () => {
    const r = decodeRfc9162Receipt(new Uint8Array(Buffer.from(ex.rfc9162InclusionReceipt.hex, "hex")));
    expect(r).toMatchObject({
      kid: "test-key-1",
      issuer: "https://transparency-service.example.com",
      treeSize: 5,
      leafIndex: 3,
    });
    expect(r.path.map((p) => Buffer.from(p).toString("hex").slice(0, 8))).toEqual([
      "3d06455d",
      "33a52117",
      "4d75742d",
    ]);
  });

  it("builds receipts that verify over the recomputed root, and only from the right leaf and key", () => {
    const { privateKey, publicKey } = es256KeyPair();
    const other = es256KeyPair().publicKey;
    const leaves = Array.from({ length: 11 }, (_, i) => leafHash(new Uint8Array([i])));
    const nodes = new Map<string, Uint8Array>();
    for (const n of appendLeafHashes(0, leaves, () => new Uint8Array()))
      nodes.set(`${n.level}:${n.idx}`, n.hash);
    const get = (l: number, i: number) => nodes.get(`${l}:${i}`) as Uint8Array;
    const root = treeRoot(11, get);
    for (const m of [0, 5, 10]) {
      const receipt = buildRfc9162Receipt(
        {
          kid: "k",
          issuer: "https://ts.example",
          subject: "tenant/x",
          treeSize: 11,
          leafIndex: m,
          path: inclusionProof(m, 11, get),
          root,
        },
        privateKey,
      );
      expect(receiptVds(receipt)).toBe(1);
      expect(verifyRfc9162Receipt(receipt, leaves[m] as Uint8Array, publicKey)).toMatchObject({
        ok: true,
        info: { leafIndex: m, treeSize: 11 },
      });
      expect(verifyRfc9162Receipt(receipt, leaves[(m + 1) % 11] as Uint8Array, publicKey).ok).toBe(false);
      expect(verifyRfc9162Receipt(receipt, leaves[m] as Uint8Array, other).ok).toBe(false);
    }
  });
});
