import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  buildBlock,
  GENESIS_PARENT,
  transactionRoot,
  verifyChain,
} from "../../../../src/core/chain/block.js";

describe("archivist node chain", () => {
  const tx = (anchor: string) => ({
    kind: "MERKLE_LOG_SEAL" as const,
    tenant: "tenant/x",
    anchor,
    details: { mmr_size: 3 },
  });

  it("links blocks and verifies an exported chain, failing on any change", () => {
    const b0 = buildBlock({
      number: 0,
      parentHash: GENESIS_PARENT,
      timestampMs: 1_700_000_000_000,
      miner: "0xabc",
      transactions: [tx("aa")],
    });
    const b1 = buildBlock({
      number: 1,
      parentHash: b0.hash,
      timestampMs: 1_700_000_010_000,
      miner: "0xabc",
      transactions: [tx("bb"), tx("cc")],
    });
    expect(verifyChain([b0, b1])).toEqual({ ok: true });
    const tampered = { ...b1, transactions: [{ ...b1.transactions[0]!, anchor: "dd" }, b1.transactions[1]!] };
    expect(verifyChain([b0, tampered]).ok).toBe(false);
    expect(verifyChain([b1]).ok).toBe(false);
    expect(b1.number).toBe("0x1");
  });

  it("computes RFC 6962 roots (empty tree is SHA-256 of nothing)", () => {
    expect(transactionRoot([])).toBe("0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const h = (...parts: Buffer[]) => createHash("sha256").update(Buffer.concat(parts)).digest();
    const leaf = (x: number) => h(Buffer.from([0]), Buffer.from([x]));
    const want = h(Buffer.from([1]), h(Buffer.from([1]), leaf(1), leaf(2)), leaf(3));
    expect(transactionRoot(["0x01", "0x02", "0x03"])).toBe(`0x${want.toString("hex")}`);
  });
});
