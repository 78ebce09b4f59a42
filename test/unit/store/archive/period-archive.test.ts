import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { eachTile, tilePath } from "../../../../src/formats/tlog/index.js";
import {
  mmrChunkName,
  mmrNodesOf,
  treeLevelOf,
  treeNodesOf,
} from "../../../../src/store/archive/period-archive.js";
import type { BlobStore } from "../../../../src/store/blobstore/blob-store.js";
import type { Queryable } from "../../../../src/store/drivers/db.js";
import { nodeKey } from "../../../../src/store/ledger/tlog-nodes.js";
import { perfect, referenceTiles } from "../../verify/tlog/reference-tree.js";

/*
 * Nodes whose rows left the database are read back from a closed period's archive: tree nodes
 * at any level from the tile at or below it (RFC 9162 hashes recomputed from the spec's own
 * definition here), MMR nodes from their chunk. The database and the blob store are stand-ins
 * holding only what the archive would.
 */
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

function archiveOf(objects: Map<string, Uint8Array>, end: number, mmrEnd: number) {
  const byHash = new Map([...objects.values()].map((b) => [sha(b), b]));
  const names = new Map([...objects].map(([name, b]) => [name, sha(b)]));
  const db: Queryable = {
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
      if (sql.includes("from tlog_archive")) {
        const h = names.get(params[1] as string);
        return (h ? [{ sha256: h }] : []) as R[];
      }
      if (sql.includes("from log_periods")) return [{ end_size: end, mmr_end: mmrEnd }] as R[];
      // Every node row of the prefix was dropped.
      if (sql.includes("from tlog_nodes") || sql.includes("from mmr_nodes")) return [];
      throw new Error(`unexpected statement: ${sql}`);
    },
  };
  const blobs: BlobStore = {
    remote: false,
    put: async () => undefined,
    remove: async () => undefined,
    open: async (h) => Readable.from([byHash.get(h) ?? new Uint8Array()]),
    read: async (h) => {
      const b = byHash.get(h);
      if (!b) throw new Error(`no object ${h}`);
      return b;
    },
  };
  return { db, blobs };
}

describe("a closed period's archive", () => {
  // 70,000 entries: full and partial tiles on levels 0, 1 and 2.
  const end = 70_000;
  const entries = Array.from({ length: end }, (_, i) => {
    const b = new Uint8Array(32);
    new DataView(b.buffer).setUint32(0, i + 1);
    return b;
  });
  const node = perfect(entries);

  it("gives every perfect subtree of the prefix at every level from its tiles", async () => {
    const tiles = referenceTiles(entries);
    const objects = new Map<string, Uint8Array>();
    for (const ref of eachTile(end, false)) objects.set(tilePath(ref), await tiles(ref));
    const src = archiveOf(objects, end, 0);
    const coords = [
      { level: 0, idx: 0 },
      { level: 0, idx: end - 1 },
      { level: 3, idx: 5 },
      { level: 7, idx: 545 },
      { level: 4, idx: 4370 },
      { level: 8, idx: 1 },
      { level: 9, idx: 135 },
      { level: 15, idx: 1 },
      { level: 16, idx: 0 },
    ];
    const got = await treeNodesOf(src, "t", coords);
    for (const c of coords)
      expect(got.get(nodeKey(c.level, c.idx)), `${c.level}/${c.idx}`).toEqual(node(c.level, c.idx));
    // Nothing past the prefix: a subtree reaching beyond entry `end` is not the archive's.
    const beyond = [
      { level: 4, idx: Math.floor(end / 16) },
      { level: 7, idx: 546 },
      { level: 9, idx: 136 },
    ];
    expect((await treeNodesOf(src, "t", beyond)).size).toBe(0);
    // A tile's range, as the tile route reads it, from the partial tile at the end.
    const last = Math.floor((end - 1) / 256) * 256;
    expect(await treeLevelOf(src, "t", 0, last, end)).toEqual(
      Array.from({ length: end - last }, (_, k) => node(0, last + k)),
    );
  }, 60_000);

  it("gives MMR nodes from full and partial chunks", async () => {
    const mmrEnd = 10_000;
    const hashes = Array.from({ length: mmrEnd }, (_, i) => createHash("sha256").update(String(i)).digest());
    const objects = new Map<string, Uint8Array>();
    for (let c = 0; c * 4096 < mmrEnd; c++)
      objects.set(mmrChunkName(c, mmrEnd), Buffer.concat(hashes.slice(c * 4096, (c + 1) * 4096)));
    expect([...objects.keys()]).toEqual(["mmr/0", "mmr/1", "mmr/2.p/1808"]);
    const got = await mmrNodesOf(archiveOf(objects, 0, mmrEnd), "t", [0, 4095, 4096, 9999, 10_000]);
    expect([...got.keys()].sort((a, b) => a - b)).toEqual([0, 4095, 4096, 9999]);
    for (const i of [0, 4095, 4096, 9999]) expect(Buffer.from(got.get(i) as Uint8Array)).toEqual(hashes[i]);
  });
});
