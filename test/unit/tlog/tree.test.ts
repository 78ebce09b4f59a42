import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  consistencyProof,
  encodeTileIndex,
  formatEntryBundle,
  inclusionProof,
  leafHash,
  parseEntryBundle,
  parseTilePath,
  rootFromTiles,
  type TileRef,
  tilePath,
  tilesOf,
  treeRoot,
  verifyConsistency,
  verifyEntryInTiles,
  verifyInclusion,
} from "../../../src/core/tlog/index.js";

interface Case {
  file: string;
  leafIdx?: number;
  treeSize?: number;
  leafHash?: string;
  root?: string;
  size1?: number;
  size2?: number;
  root1?: string;
  root2?: string;
  proof: string[] | null;
  wantErr: boolean;
}
const vectors = JSON.parse(readFileSync("fixtures/vectors/rfc9162-merkle-proofs.json", "utf8")) as {
  cases: Case[];
};
const b = (s: string) => new Uint8Array(Buffer.from(s, "base64"));
const sha = (...p: Uint8Array[]) => {
  const h = createHash("sha256");
  for (const x of p) h.update(x);
  return new Uint8Array(h.digest());
};

// An independent reference: MTH straight from RFC 9162 §2.1.1 over the leaves.
function mth(leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha();
  if (leaves.length === 1) return sha(Uint8Array.of(0), leaves[0] as Uint8Array);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha(Uint8Array.of(1), mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}
const leaves = (n: number) => Array.from({ length: n }, (_, i) => sha(Uint8Array.of(i & 0xff, i >> 8)));
const perfect = (ls: Uint8Array[]) => (level: number, index: number) =>
  mth(ls.slice(index * 2 ** level, (index + 1) * 2 ** level));

describe("RFC 9162 proofs", () => {
  it("verifies the transparency-dev inclusion and consistency vectors, refusing the bad ones", () => {
    let seen = 0;
    for (const c of vectors.cases) {
      const proof = (c.proof ?? []).map(b);
      const ok =
        c.size1 !== undefined
          ? verifyConsistency(c.size1, c.size2 as number, b(c.root1 as string), b(c.root2 as string), proof)
          : verifyInclusion(
              c.leafIdx as number,
              c.treeSize as number,
              b(c.leafHash as string),
              proof,
              b(c.root as string),
            );
      expect(ok, c.file).toBe(!c.wantErr);
      seen++;
    }
    expect(seen).toBeGreaterThan(20);
  });

  it("builds roots, inclusion and consistency proofs from perfect subtrees that verify", () => {
    const ls = leaves(70);
    for (let size = 1; size <= 70; size++) {
      const get = perfect(ls.slice(0, size));
      const root = treeRoot(size, get);
      expect(root).toEqual(mth(ls.slice(0, size)));
      for (const i of [0, size >> 1, size - 1])
        expect(
          verifyInclusion(i, size, leafHash(ls[i] as Uint8Array), inclusionProof(i, size, get), root),
        ).toBe(true);
      for (const first of [1, 2, 3, size >> 1, size - 1].filter((f) => f >= 1 && f < size)) {
        const proof = consistencyProof(first, size, get);
        const firstRoot = mth(ls.slice(0, first));
        expect(verifyConsistency(first, size, firstRoot, root, proof), `${first}→${size}`).toBe(true);
        expect(verifyConsistency(first, size, mth(ls.slice(1, first + 1)), root, proof)).toBe(false);
      }
    }
  });
});

describe("tiles (c2sp.org/tlog-tiles)", () => {
  it("names tiles as the spec does", () => {
    expect(encodeTileIndex(1234067)).toBe("x001/x234/067");
    expect(encodeTileIndex(5)).toBe("005");
    expect(tilePath({ level: 0, index: 1234067, width: 256 })).toBe("tile/0/x001/x234/067");
    expect(tilePath({ level: "entries", index: 3, width: 17 })).toBe("tile/entries/003.p/17");
    expect(parseTilePath("0/x001/x234/067")).toEqual({ level: 0, index: 1234067, width: 256 });
    expect(parseTilePath("entries/000.p/255")).toEqual({ level: "entries", index: 0, width: 255 });
    for (const bad of ["0/1", "0/x000/001", "0/001.p/256", "0/001.p/0", "64/000", "01/000", "0/000.p/07"])
      expect(parseTilePath(bad), bad).toBeUndefined();
  });

  it("lists the tiles of a tree of 70,000 as the spec's example does", () => {
    const t = tilesOf(70000, false);
    const at = (l: number) => t.filter((x) => x.level === l);
    expect(at(0).filter((x) => x.width === 256)).toHaveLength(273);
    expect(
      at(0)
        .filter((x) => x.width !== 256)
        .map((x) => x.width),
    ).toEqual([112]);
    expect(at(1).map((x) => x.width)).toEqual([256, 17]);
    expect(at(2).map((x) => x.width)).toEqual([1]);
    expect(tilesOf(256, false).map(tilePath)).toEqual(["tile/0/000", "tile/1/000.p/1"]);
  });

  it("recomputes roots and verifies entries from tiles made of perfect subtrees", async () => {
    const entries = leaves(600);
    const hashes = entries.map(leafHash);
    const get = perfect(entries);
    // Tiles made directly per the spec: hash i of tile (l, n) is MTH(D[(n·256+i)·256^l : …]).
    const fetch = async (t: TileRef) => {
      if (t.level === "entries")
        return formatEntryBundle(entries.slice(t.index * 256, t.index * 256 + t.width));
      const out = new Uint8Array(t.width * 32);
      for (let i = 0; i < t.width; i++) out.set(get(8 * t.level, t.index * 256 + i), i * 32);
      return out;
    };
    for (const size of [1, 255, 256, 257, 511, 512, 600]) {
      const root = mth(entries.slice(0, size));
      expect(await rootFromTiles(size, fetch)).toEqual(root);
      expect(await verifyEntryInTiles(size - 1, entries[size - 1] as Uint8Array, size, root, fetch)).toEqual({
        ok: true,
      });
    }
    expect(hashes[0]).toEqual(leafHash(entries[0] as Uint8Array));
    const wrong = await verifyEntryInTiles(3, entries[4] as Uint8Array, 600, mth(entries), fetch);
    expect(wrong.ok).toBe(false);
    expect(parseEntryBundle(formatEntryBundle([Uint8Array.of(1, 2), new Uint8Array(0)]))).toEqual([
      Uint8Array.of(1, 2),
      new Uint8Array(0),
    ]);
  });
});
