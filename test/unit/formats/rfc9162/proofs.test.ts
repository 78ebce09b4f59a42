import { describe, expect, it } from "vitest";
import { appendLeafHashes, appendNodesNeeded } from "../../../../src/core/log/tree-append.js";
import {
  consistencyProof,
  consistencyProofNodes,
  inclusionProofNodes,
  rootNodes,
} from "../../../../src/core/log/tree-proof.js";
import {
  inclusionProof,
  leafHash,
  treeRoot,
  verifyConsistency,
  verifyInclusion,
} from "../../../../src/formats/rfc9162/index.js";
import { fixtureJson } from "../../../helpers/fixtures.js";

interface Vectors {
  cases: Array<
    | {
        file: string;
        leafIdx: number;
        treeSize: number;
        root: string;
        leafHash: string;
        proof: string[] | null;
        desc: string;
        wantErr: boolean;
      }
    | {
        file: string;
        size1: number;
        size2: number;
        root1: string;
        root2: string;
        proof: string[] | null;
        desc: string;
        wantErr: boolean;
      }
  >;
}
const v = fixtureJson<Vectors>("vectors/rfc9162-merkle-proofs.json");
const b64 = (s: string) => new Uint8Array(Buffer.from(s, "base64"));
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const inclusion = v.cases.filter(
  (c): c is Extract<Vectors["cases"][number], { leafIdx: number }> => "leafIdx" in c,
);
const consistency = v.cases.filter(
  (c): c is Extract<Vectors["cases"][number], { size1: number }> => "size1" in c,
);

/** RFC 6962's reference leaves (the transparency-dev test tree). */
const REFERENCE = [
  "",
  "00",
  "10",
  "2021",
  "3031",
  "40414243",
  "5051525354555657",
  "606162636465666768696a6b6c6d6e6f",
];

/** A stored tree built leaf by leaf through the append path, as the committer grows it. */
function grow(leaves: Uint8Array[], batch = 1) {
  const stored = new Map<string, Uint8Array>();
  const get = (level: number, idx: number) => {
    const h = stored.get(`${level}:${idx}`);
    if (!h) throw new Error(`node ${level}:${idx} was not stored`);
    return h;
  };
  let size = 0;
  for (let i = 0; i < leaves.length; i += batch) {
    const next = leaves.slice(i, i + batch).map((l) => leafHash(l));
    // Appends read only the frontier: hide everything else to prove it.
    const frontier = new Set(appendNodesNeeded(size).map((c) => `${c.level}:${c.idx}`));
    for (const n of appendLeafHashes(size, next, (l, x) => {
      if (!frontier.has(`${l}:${x}`)) throw new Error(`append read ${l}:${x} outside the frontier`);
      return get(l, x);
    }))
      stored.set(`${n.level}:${n.idx}`, n.hash);
    size += next.length;
  }
  return { get, stored };
}

describe("RFC 9162 verification against transparency-dev vectors", () => {
  it.each(inclusion.map((c) => [c.file ?? c.desc, c] as const))("inclusion %s", (_, c) => {
    const ok = verifyInclusion(c.leafIdx, c.treeSize, b64(c.leafHash), (c.proof ?? []).map(b64), b64(c.root));
    expect(ok).toBe(!c.wantErr);
  });
  it.each(consistency.map((c) => [c.file ?? c.desc, c] as const))("consistency %s", (_, c) => {
    const ok = verifyConsistency(c.size1, c.size2, b64(c.root1), b64(c.root2), (c.proof ?? []).map(b64));
    expect(ok).toBe(!c.wantErr);
  });
});

describe("RFC 9162 proofs from stored perfect subtrees", () => {
  const leaves = REFERENCE.map((h) => new Uint8Array(Buffer.from(h, "hex")));
  const { get } = grow(leaves);

  it("roots match RFC 6962's reference tree", () => {
    expect(hex(treeRoot(8, get))).toBe("5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328");
    expect(hex(treeRoot(1, get))).toBe("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d");
    expect(hex(treeRoot(5, get))).toBe("4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4");
  });

  it("generates every happy-path proof of the vectors over the reference tree exactly", () => {
    let compared = 0;
    for (const c of inclusion.filter((c) => !c.wantErr && c.treeSize <= 8 && c.proof)) {
      if (hex(treeRoot(c.treeSize, get)) !== hex(b64(c.root))) continue;
      expect(inclusionProof(c.leafIdx, c.treeSize, get).map(hex)).toEqual(
        (c.proof ?? []).map((p) => hex(b64(p))),
      );
      compared++;
    }
    for (const c of consistency.filter((c) => !c.wantErr && c.size2 <= 8 && c.size1 >= 1)) {
      if (hex(treeRoot(c.size2, get)) !== hex(b64(c.root2))) continue;
      expect(consistencyProof(c.size1, c.size2, get).map(hex)).toEqual(
        (c.proof ?? []).map((p) => hex(b64(p))),
      );
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(9);
  });

  it("every proof of trees up to 70 leaves verifies, batched appends equal single ones, and reads only what it lists", () => {
    const many = Array.from({ length: 70 }, (_, i) => new Uint8Array([i, i >> 8, 7]));
    const one = grow(many, 1);
    const batched = grow(many, 13);
    expect([...batched.stored.keys()].sort()).toEqual([...one.stored.keys()].sort());
    for (let n = 1; n <= 70; n++) {
      const root = treeRoot(n, one.get);
      const listed = (coords: Array<{ level: number; idx: number }>) => {
        const allow = new Set(coords.map((c) => `${c.level}:${c.idx}`));
        return (l: number, x: number) => {
          if (!allow.has(`${l}:${x}`)) throw new Error(`read ${l}:${x} not listed`);
          return one.get(l, x);
        };
      };
      expect(hex(treeRoot(n, listed(rootNodes(n))))).toBe(hex(root));
      for (let m = 0; m < n; m++) {
        const proof = inclusionProof(m, n, listed(inclusionProofNodes(m, n)));
        expect(verifyInclusion(m, n, leafHash(many[m] as Uint8Array), proof, root)).toBe(true);
        expect(verifyInclusion(m, n, leafHash(new Uint8Array([255])), proof, root)).toBe(false);
      }
      for (let m = 1; m <= n; m++) {
        const proof = consistencyProof(m, n, listed(consistencyProofNodes(m, n)));
        expect(verifyConsistency(m, n, treeRoot(m, one.get), root, proof)).toBe(true);
        if (m < n) expect(verifyConsistency(m, n, root, root, proof)).toBe(false);
      }
    }
  });
});
