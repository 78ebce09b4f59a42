import { describe, expect, it } from "vitest";
import { formatEntryBundle } from "../../../../src/core/log/tlog-format.js";
import {
  eachTile,
  encodeTileIndex,
  leafHash,
  parseEntryBundle,
  parseTilePath,
  rootFromTiles,
  tileCount,
  tilePath,
  tilesOf,
  verifyEntryInTiles,
} from "../../../../src/formats/tlog/index.js";
import { mth, referenceTiles, sha } from "../../verify/tlog/reference-tree.js";

const leaves = (n: number) => Array.from({ length: n }, (_, i) => sha(Uint8Array.of(i & 0xff, i >> 8)));

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
    const hashes = entries.map((e) => leafHash(e));
    const fetch = referenceTiles(entries);
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

describe("tiles listed one at a time", () => {
  it("counts what it yields, and yields what a list would hold", () => {
    for (const size of [0, 1, 255, 256, 257, 65536, 65537, 70000]) {
      const listed = tilesOf(size);
      expect(tileCount(size), String(size)).toBe(listed.length);
      expect([...eachTile(size)]).toEqual(listed);
    }
    // A claimed size past anything real is counted without listing a tile.
    expect(tileCount(Number.MAX_SAFE_INTEGER)).toBeGreaterThan(2 ** 45);
  });
});
