import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  appendLeaves,
  appendNodesNeeded,
  knownNode,
  peakHashes,
} from "../../../../src/core/log/mmr-append.js";
import { consistencyProof, consistencyProofIndices } from "../../../../src/core/log/mmr-proof.js";
import { hashPosPair } from "../../../../src/formats/mmr/hash.js";
import {
  heightIndex,
  includedRoot,
  inclusionProof,
  inclusionProofIndices,
  isValidMmrSize,
  leafCount,
  leafIndexOfMmrIndex,
  mmrIndexOfLeaf,
  peakIndices,
  verifyConsistency,
  verifyInclusion,
} from "../../../../src/formats/mmr/index.js";
import { fixtureJson } from "../../../helpers/fixtures.js";

interface Kat {
  completeMMRSizes: number[];
  leafMMRIndices: number[];
  leaves: Array<{ e: number; mmrIndex: number; value: string }>;
  nodes: Array<{ mmrIndex: number; value: string }>;
  peaks: Array<{ mmrSize: number; peakIndices: number[]; peakValues: string[] }>;
  heightsAndLeafCounts: { rows: Array<{ mmrIndex: number; height: number; leafCount: number }> };
  inclusionProofs: {
    rows: Array<{
      mmrIndex: number;
      mmrSize: number;
      path: string[];
      pathIndices: number[];
      includedRoot: string;
    }>;
  };
}
interface Consistency {
  rows: Array<{
    treeSize1: number;
    treeSize2: number;
    consistencyPathIndices: number[][];
    consistencyPaths: string[][];
    accumulator2: string[];
  }>;
}

const kat = fixtureJson<Kat>("vectors/mmr-kat39.json");
const cons = fixtureJson<Consistency>("vectors/mmr-kat39-consistency-derived.json");
const h = (s: string) => new Uint8Array(Buffer.from(s, "hex"));
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const leaves = kat.leaves.map((l) => h(l.value));
const built = appendLeaves(0, leaves, () => {
  throw new Error("empty MMR has no nodes");
});
const node = (i: number) => built.nodes[i] as Uint8Array;

describe("MMR known answers (KAT39)", () => {
  it("appends the 21 leaves into exactly the published 39 nodes", () => {
    expect(built.newSize).toBe(39);
    expect(built.nodes.map(hex)).toEqual(kat.nodes.map((n) => n.value));
    expect(built.leafIndices).toEqual(kat.leafMMRIndices);
  });

  it("appends in batches of any split with the same result", () => {
    let size = 0;
    const nodes: Uint8Array[] = [];
    for (const chunk of [leaves.slice(0, 3), leaves.slice(3, 4), leaves.slice(4, 13), leaves.slice(13)]) {
      const r = appendLeaves(size, chunk, (i) => nodes[i] as Uint8Array);
      nodes.push(...r.nodes);
      size = r.newSize;
    }
    expect(nodes.map(hex)).toEqual(kat.nodes.map((n) => n.value));
  });

  it("knows heights, leaf counts, leaf indices and complete sizes", () => {
    for (const row of kat.heightsAndLeafCounts.rows)
      expect(heightIndex(row.mmrIndex), `height ${row.mmrIndex}`).toBe(row.height);
    for (const l of kat.leaves) {
      expect(mmrIndexOfLeaf(l.e)).toBe(l.mmrIndex);
      expect(leafIndexOfMmrIndex(l.mmrIndex)).toBe(l.e);
    }
    for (let n = 0; n <= 39; n++)
      expect(isValidMmrSize(n), `size ${n}`).toBe(n === 0 || kat.completeMMRSizes.includes(n));
    for (const p of kat.peaks)
      expect(leafCount(p.mmrSize)).toBe(p.peakIndices.map(heightIndex).reduce((a, g) => a + 2 ** g, 0));
  });

  it("finds the published peaks of every complete size", () => {
    for (const p of kat.peaks) {
      expect(peakIndices(p.mmrSize)).toEqual(p.peakIndices);
      expect(peakHashes(p.mmrSize, node).map(hex)).toEqual(p.peakValues);
    }
  });

  it("produces and verifies every published inclusion path", () => {
    expect(kat.inclusionProofs.rows.length).toBeGreaterThan(400);
    for (const row of kat.inclusionProofs.rows) {
      const path = inclusionProof(row.mmrSize, row.mmrIndex, node);
      expect(path.map(hex), `${row.mmrIndex}@${row.mmrSize}`).toEqual(row.path);
      expect(inclusionProofIndices(row.mmrSize, row.mmrIndex)).toEqual(row.pathIndices);
      const peaks = peakHashes(row.mmrSize, node);
      expect(verifyInclusion(row.mmrSize, row.mmrIndex, node(row.mmrIndex), path, peaks)).toBe(true);
      expect(hex(includedRoot(row.mmrIndex, node(row.mmrIndex), path))).toBe(row.includedRoot);
    }
  });

  it("produces and verifies all 210 derived consistency proofs", () => {
    expect(cons.rows).toHaveLength(210);
    for (const row of cons.rows) {
      expect(consistencyProofIndices(row.treeSize1, row.treeSize2)).toEqual(row.consistencyPathIndices);
      const paths = consistencyProof(row.treeSize1, row.treeSize2, node);
      expect(paths.map((p) => p.map(hex))).toEqual(row.consistencyPaths);
      expect(peakHashes(row.treeSize2, node).map(hex)).toEqual(row.accumulator2);
      expect(
        verifyConsistency(
          row.treeSize1,
          row.treeSize2,
          peakHashes(row.treeSize1, node),
          peakHashes(row.treeSize2, node),
          paths,
        ),
      ).toBe(true);
    }
  });

  it("never verifies a flipped byte, a wrong index or a bad size", () => {
    const size = 39;
    const peaks = peakHashes(size, node);
    const path = inclusionProof(size, 7, node);
    const bad = new Uint8Array(node(7));
    bad[0] = (bad[0] as number) ^ 1;
    expect(verifyInclusion(size, 7, bad, path, peaks)).toBe(false);
    expect(verifyInclusion(size, 8, node(7), path, peaks)).toBe(false);
    const badPath = path.map((p, k) => (k === 1 ? new Uint8Array(32) : p));
    expect(verifyInclusion(size, 7, node(7), badPath, peaks)).toBe(false);
    expect(verifyInclusion(38, 7, node(7), path, peaks)).toBe(false);
    expect(() => inclusionProofIndices(6, 1)).toThrow(RangeError);
    const paths = consistencyProof(10, 39, node);
    const tampered = peakHashes(10, node).map((p, k) => (k === 0 ? new Uint8Array(32) : p));
    expect(verifyConsistency(10, 39, tampered, peaks, paths)).toBe(false);
    expect(verifyConsistency(39, 10, peaks, peakHashes(10, node), paths)).toBe(false);
  });
});

describe("MMR index arithmetic at the edges", () => {
  it("is exact past 2^32 and refuses negative or huge indices", () => {
    expect(heightIndex(2 ** 33 - 2)).toBe(32);
    expect(heightIndex(2 ** 33 - 1)).toBe(0);
    expect(mmrIndexOfLeaf(2 ** 32)).toBe(2 ** 33 - 1);
    expect(() => heightIndex(-3)).toThrow(RangeError);
    expect(() => heightIndex(2 ** 53)).toThrow(RangeError);
    expect(isValidMmrSize(2 ** 40 - 1)).toBe(true);
  });
});

/** Appending as the MMR's definition reads: after each node, a parent while the next index is higher. */
function appendByHeights(mmrSize: number, leaves: Uint8Array[], getNode: (i: number) => Uint8Array) {
  const nodes: Uint8Array[] = [];
  const node = (i: number) => (i >= mmrSize ? (nodes[i - mmrSize] as Uint8Array) : getNode(i));
  let size = mmrSize;
  for (const leaf of leaves) {
    nodes.push(leaf);
    let i = size++;
    let value = leaf;
    for (let g = 0; heightIndex(i + 1) > g; g++) {
      value = hashPosPair(i + 2, node(i + 1 - 2 ** (g + 1)), value);
      nodes.push(value);
      i++;
      size++;
    }
  }
  return { nodes, newSize: size };
}

describe("MMR append counts its merges from the leaf count", () => {
  it("makes the nodes the heights make, from any complete size, small or past 2^32 leaves", () => {
    const stand = (i: number) => {
      const h = new Uint8Array(32);
      new DataView(h.buffer).setFloat64(0, i);
      return h;
    };
    fc.assert(
      fc.property(
        fc.oneof(
          fc.nat(5_000),
          fc.integer({ min: 2 ** 32 - 40, max: 2 ** 32 + 40 }),
          fc.integer({ min: 2 ** 45, max: 2 ** 45 + 3 }),
        ),
        fc.integer({ min: 1, max: 70 }),
        (leavesBefore, count) => {
          const size = mmrIndexOfLeaf(leavesBefore);
          const leaves = Array.from({ length: count }, (_, k) => stand(-1 - k));
          const got = appendLeaves(size, leaves, stand);
          const want = appendByHeights(size, leaves, stand);
          expect(got.newSize).toBe(want.newSize);
          expect(got.nodes.map(hex)).toEqual(want.nodes.map(hex));
          expect(leafCount(got.newSize)).toBe(leavesBefore + count);
        },
      ),
    );
  });
});

describe("MMR append over the nodes read for it", () => {
  const node = (i: number) => new Uint8Array(32).fill(i);

  it("appends when every node it needs was read", () => {
    // Three leaves: peaks 2 and 3, which a fourth leaf merges.
    const known = new Map(appendNodesNeeded(4).map((i) => [i, node(i)] as const));
    const got = appendLeaves(4, [node(9)], knownNode(known, "t1"));
    expect(got.newSize).toBe(7);
  });

  it("refuses an append whose peak is missing, naming the log and the node", () => {
    const known = new Map([[2, node(2)]]);
    expect(() => appendLeaves(4, [node(9)], knownNode(known, "t1"))).toThrow("log t1 is missing node 3");
  });
});
