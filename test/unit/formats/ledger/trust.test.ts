import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  type CoveringSeal,
  committedTrust,
  confirmEntry,
  unequivocalEntry,
} from "../../../../src/formats/ledger/trust.js";

const peak = (byte: number) => Buffer.alloc(32, byte);
const seal: CoveringSeal = {
  mmr_size: 11,
  timestamp_ms: 1_700_000_000_123,
  idtimestamp: "01918f0c5a2b000100",
  peaks: [peak(1).toString("base64"), peak(2).toString("base64"), peak(3).toString("base64")],
  anchored_block: null,
  anchor_block_hash: null,
  anchor_tx_hash: null,
  anchor_tx_index: null,
};
const anchored: CoveringSeal = {
  ...seal,
  anchored_block: 7,
  anchor_block_hash: "0xblock",
  anchor_tx_hash: "0xtx",
  anchor_tx_index: 2,
};

describe("trust levels derived from the covering seal", () => {
  it("is COMMITTED with no seal, CONFIRMED under a seal, UNEQUIVOCAL once the seal is anchored", () => {
    expect(committedTrust(null)).toBe("COMMITTED");
    expect(committedTrust(seal)).toBe("CONFIRMED");
    expect(committedTrust(anchored)).toBe("UNEQUIVOCAL");
  });

  it("stays CONFIRMED while witnesses are configured and no quorum cosigned a checkpoint covering the seal", () => {
    expect(committedTrust({ ...anchored, witnessed: false })).toBe("CONFIRMED");
    expect(committedTrust({ ...anchored, witnessed: true })).toBe("UNEQUIVOCAL");
    expect(committedTrust({ ...seal, witnessed: true })).toBe("CONFIRMED");
  });

  it("confirms with the seal's state, the root being SHA-256 over the peaks in order", () => {
    const root = createHash("sha256")
      .update(Buffer.concat([peak(1), peak(2), peak(3)]))
      .digest("base64");
    expect(confirmEntry(seal)).toEqual({
      mmr_size: "11",
      root,
      timestamp: "1700000000123",
      idtimestamp: "01918f0c5a2b000100",
      signed_tree_head: "",
    });
    const reordered = { ...seal, peaks: [...seal.peaks].reverse() };
    expect(confirmEntry(reordered).root).not.toBe(root);
  });

  it("names the anchoring block and transaction only once there is one", () => {
    expect(unequivocalEntry(seal)).toBeNull();
    expect(unequivocalEntry(anchored)).toEqual({
      block_number: "7",
      block_hash: "0xblock",
      transaction_hash: "0xtx",
      mmr_size: "11",
    });
  });
});
