import { describe, expect, it } from "vitest";
import type { IndexFacts } from "../../../src/store/ledger/vindex.js";
import { FreshIndexFacts, factsOfRecord } from "../../../src/vindex/fresh-facts.js";

const facts = (from: number, n: number): IndexFacts[] =>
  Array.from({ length: n }, (_, k) => ({
    leaf_index: from + k,
    kind: "asset_event",
    asset_id: "a",
    subject: null,
    issuer: null,
  }));

describe("the committer's facts kept for the index", () => {
  it("answers a range only when a contiguous run holds all of it", () => {
    const f = new FreshIndexFacts();
    expect(f.between("t", 0, 1)).toBeUndefined();
    f.remember("t", facts(10, 5));
    f.remember("t", facts(15, 5));
    expect(f.between("t", 10, 20)?.map((x) => x.leaf_index)).toEqual([
      10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
    ]);
    expect(f.between("t", 12, 21)).toBeUndefined();
    expect(f.between("t", 9, 12)).toBeUndefined();
    expect(f.between("other", 10, 12)).toBeUndefined();
  });

  it("starts a new run at a gap (entries another process appended), and drops what revisions passed", () => {
    const f = new FreshIndexFacts();
    f.remember("t", facts(0, 3));
    f.remember("t", facts(5, 2));
    expect(f.between("t", 0, 3)).toBeUndefined();
    expect(f.between("t", 5, 7)).toHaveLength(2);
    expect(f.between("t", 6, 7)?.[0]?.leaf_index).toBe(6);
    expect(f.between("t", 5, 7)).toBeUndefined();
  });

  it("keeps at most 200,000 facts over every log, then starts over", () => {
    const f = new FreshIndexFacts();
    f.remember("a", facts(0, 150_000));
    f.remember("b", facts(0, 40_000));
    expect(f.between("a", 149_999, 150_000)).toHaveLength(1);
    // The revision of "a" dropped what it moved past: room for "b" to grow without a start over.
    f.remember("b", facts(40_000, 100_000));
    expect(f.between("b", 0, 140_000)).toHaveLength(140_000);
    f.remember("a", facts(150_000, 70_000));
    expect(f.between("b", 0, 1)).toBeUndefined();
    expect(f.between("a", 150_000, 220_000)).toHaveLength(70_000);
    f.remember("c", facts(0, 200_001));
    expect(f.between("c", 0, 1)).toBeUndefined();
    expect(f.between("a", 150_000, 150_001)).toBeUndefined();
  });

  it("reads a subject and an issuer only when they are strings, and an issuer only of an asset-free event", () => {
    expect(
      factsOfRecord(
        { kind: "asset_event", asset_id: "x", attributes: { subject: "s", scitt_issuer: "i" } },
        4,
      ),
    ).toEqual({
      leaf_index: 4,
      kind: "asset_event",
      asset_id: "x",
      subject: "s",
      issuer: null,
    });
    expect(
      factsOfRecord({ kind: "event", asset_id: "x", attributes: { subject: 1, scitt_issuer: "i" } }, 5),
    ).toEqual({
      leaf_index: 5,
      kind: "event",
      asset_id: null,
      subject: null,
      issuer: "i",
    });
  });
});
