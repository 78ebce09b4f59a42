import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appendLeaves, appendNodesNeeded as mmrNeeded } from "../../../src/core/log/mmr-append.js";
import { appendLeafHashes, appendNodesNeeded as treeNeeded } from "../../../src/core/log/tree-append.js";
import { mmrIndexOfLeaf } from "../../../src/formats/mmr/index.js";
import { leafHash } from "../../../src/formats/rfc9162/index.js";
import { nodeKey } from "../../../src/store/ledger/tlog-nodes.js";
import { frontierAfter } from "../../../src/workers/log-frontiers.js";

const leaf = (n: number) => leafHash(Uint8Array.of(n & 0xff, (n >> 8) & 0xff, n >> 16));

/** Both logs grown to `before` leaves, every node kept, then `count` more appended. */
function grown(before: number, count: number) {
  const mmr: Uint8Array[] = [];
  const tree = new Map<string, Uint8Array>();
  const grow = (from: number, to: number) => {
    const leaves = Array.from({ length: to - from }, (_, k) => leaf(from + k));
    const m = appendLeaves(mmrIndexOfLeaf(from), leaves, (i) => mmr[i] as Uint8Array);
    mmr.push(...m.nodes);
    const t = appendLeafHashes(from, leaves, (l, x) => tree.get(nodeKey(l, x)) as Uint8Array);
    for (const n of t) tree.set(nodeKey(n.level, n.idx), n.hash);
    return { m, t };
  };
  grow(0, before);
  const beforeMmr = new Map(mmrNeeded(mmrIndexOfLeaf(before)).map((i) => [i, mmr[i] as Uint8Array]));
  const beforeTree = new Map(
    treeNeeded(before).map((c) => [nodeKey(c.level, c.idx), tree.get(nodeKey(c.level, c.idx)) as Uint8Array]),
  );
  const { m, t } = grow(before, before + count);
  return { mmr, tree, beforeMmr, beforeTree, m, t };
}

describe("a log's frontier after an append", () => {
  it("holds exactly the nodes the next append reads, from the append's own nodes or the ones it read", () => {
    fc.assert(
      fc.property(fc.nat(300), fc.integer({ min: 1, max: 140 }), (before, count) => {
        const g = grown(before, count);
        const size = before + count;
        const f = frontierAfter(
          { size: g.m.newSize, before: g.beforeMmr, firstNew: mmrIndexOfLeaf(before), added: g.m.nodes },
          { size, before: g.beforeTree, added: g.t },
        );
        expect(f).toBeDefined();
        expect([...(f?.mmr ?? [])]).toEqual(mmrNeeded(g.m.newSize).map((i) => [i, g.mmr[i]]));
        expect([...(f?.tree ?? [])]).toEqual(
          treeNeeded(size).map((c) => [nodeKey(c.level, c.idx), g.tree.get(nodeKey(c.level, c.idx))]),
        );
      }),
      { numRuns: 300 },
    );
  });

  it("is undefined when a node it needs was neither read nor made", () => {
    const g = grown(5, 2);
    const f = frontierAfter(
      { size: g.m.newSize, before: g.beforeMmr, firstNew: mmrIndexOfLeaf(5), added: g.m.nodes },
      { size: 7, before: new Map(), added: g.t },
    );
    expect(f).toBeUndefined();
  });
});
