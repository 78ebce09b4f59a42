import { createHash, randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { nodeSha256 } from "../../core/node/crypto.js";
import type { NodeCoord } from "../../formats/rfc9162/coords.js";
import { nodeHash } from "../../formats/rfc9162/hash.js";
import { TILE_HEIGHT, TILE_WIDTH, tilePath, tileWidth } from "../../formats/tlog/tile-path.js";
import type { PerfectHash } from "../../formats/tlog/tree.js";
import type { BlobStore } from "../blobstore/blob-store.js";
import type { Queryable } from "../drivers/db.js";
import { readNodes } from "../ledger/ledger.js";
import { nodeKey, readTlogNodes } from "../ledger/tlog-nodes.js";
import { withNodesRead } from "../ledger/tlog-tiles.js";

/**
 * A closed log period's objects in the blob store (docs/scaling.md, "Closed periods leave the
 * database"): its C2SP tiles and entry bundles under their tile paths, its MMR nodes in chunks of
 * `MMR_CHUNK` (`mmr/<n>`, the last one of a period `mmr/<n>.p/<count>`), its final checkpoint
 * (`periods/<k>/checkpoint`). Every object is immutable and stored by content (`tlog_archive`
 * names it); a node whose row was dropped is read from them. Tiles hold the tree's hashes at
 * every eighth level: a node between is hashed up from at most 128 of the tile below it.
 */
export const MMR_CHUNK = 4096;

/** What reads nodes that may have left the database: the database and the blob store. */
export interface NodeSource {
  db: Queryable;
  blobs: BlobStore;
}

/** Where the archive of a tenancy's log reaches: its tree's size and its MMR's (0, 0 when none). */
export async function archivedExtent(
  db: Queryable,
  tenantId: string,
): Promise<{ end: number; mmrEnd: number }> {
  const rows = await db.query<{ end_size: number | string | null; mmr_end: number | string | null }>(
    "select max(end_size) as end_size, max(mmr_end) as mmr_end from log_periods where tenant_id = $1 and archived_at is not null",
    [tenantId],
  );
  return { end: Number(rows[0]?.end_size ?? 0), mmrEnd: Number(rows[0]?.mmr_end ?? 0) };
}

/** The names the archive already holds for a tenancy's log. */
export async function archivedNames(db: Queryable, tenantId: string): Promise<Set<string>> {
  const rows = await db.query<{ name: string }>("select name from tlog_archive where tenant_id = $1", [
    tenantId,
  ]);
  return new Set(rows.map((r) => r.name));
}

/** Names archived objects (in the caller's transaction, with the periods they complete). */
export async function recordArchived(
  tx: Queryable,
  tenantId: string,
  objects: Array<{ name: string; sha256: string }>,
): Promise<void> {
  if (objects.length === 0) return;
  await tx.query(
    `insert into tlog_archive (tenant_id, name, sha256) select $1, * from unnest($2::text[], $3::text[])
     on conflict do nothing`,
    [tenantId, objects.map((o) => o.name), objects.map((o) => o.sha256)],
  );
}

/** Stores bytes in the blob store (by their SHA-256, so storing them again changes nothing). */
export async function storeObject(blobs: BlobStore, tmpDir: string, bytes: Uint8Array): Promise<string> {
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  await mkdir(tmpDir, { recursive: true });
  const tmp = join(tmpDir, `archive-${randomUUID()}`);
  await writeFile(tmp, bytes);
  await blobs.put(sha256, tmp, bytes.length);
  return sha256;
}

/** An archived object's bytes, or undefined when the archive does not name it. */
export async function archivedObject(
  src: NodeSource,
  tenantId: string,
  name: string,
): Promise<Uint8Array | undefined> {
  const rows = await src.db.query<{ sha256: string }>(
    "select sha256 from tlog_archive where tenant_id = $1 and name = $2",
    [tenantId, name],
  );
  const sha256 = rows[0]?.sha256;
  if (!sha256) return undefined;
  const bytes = await src.blobs.read(sha256);
  if (createHash("sha256").update(bytes).digest("hex") !== sha256)
    throw new Error(`archived object ${name} of log ${tenantId} does not hash to ${sha256}`);
  return bytes;
}

/** The name of the MMR chunk holding node `index` in an archive reaching MMR size `mmrEnd`. */
export function mmrChunkName(chunk: number, mmrEnd: number): string {
  const count = Math.min(MMR_CHUNK, mmrEnd - chunk * MMR_CHUNK);
  return count === MMR_CHUNK ? `mmr/${chunk}` : `mmr/${chunk}.p/${count}`;
}

/** Reads each named object once per call. */
function objectReader(src: NodeSource, tenantId: string) {
  const read = new Map<string, Promise<Uint8Array | undefined>>();
  return (name: string) => {
    let p = read.get(name);
    if (!p) {
      p = archivedObject(src, tenantId, name);
      read.set(name, p);
    }
    return p;
  };
}

/** MMR node hashes from the archive alone (indices below its MMR size). */
export async function archivedMmrNodes(
  src: NodeSource,
  tenantId: string,
  indices: number[],
  mmrEnd: number,
): Promise<Map<number, Uint8Array>> {
  const object = objectReader(src, tenantId);
  const out = new Map<number, Uint8Array>();
  for (const i of indices) {
    if (i >= mmrEnd) continue;
    const chunk = Math.floor(i / MMR_CHUNK);
    const bytes = await object(mmrChunkName(chunk, mmrEnd));
    const at = (i - chunk * MMR_CHUNK) * 32;
    if (bytes && bytes.length >= at + 32) out.set(i, bytes.slice(at, at + 32));
  }
  return out;
}

/** Tree nodes from the archive alone: perfect subtrees within its first `end` entries. */
export async function archivedTreeNodes(
  src: NodeSource,
  tenantId: string,
  coords: NodeCoord[],
  end: number,
): Promise<Map<string, Uint8Array>> {
  const object = objectReader(src, tenantId);
  const out = new Map<string, Uint8Array>();
  for (const { level, idx } of coords) {
    if ((idx + 1) * 2 ** level > end) continue;
    const tileLevel = Math.floor(level / TILE_HEIGHT);
    const below = level - tileLevel * TILE_HEIGHT;
    const first = idx * 2 ** below;
    const tile = Math.floor(first / TILE_WIDTH);
    const width = tileWidth(tileLevel, tile, end);
    const bytes = await object(tilePath({ level: tileLevel, index: tile, width }));
    const at = first - tile * TILE_WIDTH;
    if (!bytes || bytes.length < (at + 2 ** below) * 32) continue;
    let hashes: Uint8Array[] = Array.from({ length: 2 ** below }, (_, k) =>
      bytes.slice((at + k) * 32, (at + k + 1) * 32),
    );
    while (hashes.length > 1)
      hashes = Array.from({ length: hashes.length / 2 }, (_, k) =>
        nodeHash(hashes[2 * k] as Uint8Array, hashes[2 * k + 1] as Uint8Array, nodeSha256),
      );
    out.set(nodeKey(level, idx), hashes[0] as Uint8Array);
  }
  return out;
}

/**
 * Nodes from the database, and those it no longer holds from the archive of the log's dropped
 * prefix (the archive is read only when some are missing). `key` is a node's key in both maps.
 */
async function nodesOf<C, K>(
  src: NodeSource,
  tenantId: string,
  wanted: C[],
  key: (c: C) => K,
  fromDb: (db: Queryable, tenantId: string, wanted: C[]) => Promise<Map<K, Uint8Array>>,
  fromArchive: (missing: C[], extent: { end: number; mmrEnd: number }) => Promise<Map<K, Uint8Array>>,
): Promise<Map<K, Uint8Array>> {
  const found = await fromDb(src.db, tenantId, wanted);
  const missing = wanted.filter((c) => !found.has(key(c)));
  if (missing.length === 0) return found;
  const extent = await archivedExtent(src.db, tenantId);
  for (const [k, h] of await fromArchive(missing, extent)) found.set(k, h);
  return found;
}

/** MMR nodes: from the database, those it no longer holds from the archive. */
export function mmrNodesOf(
  src: NodeSource,
  tenantId: string,
  indices: number[],
): Promise<Map<number, Uint8Array>> {
  return nodesOf(
    src,
    tenantId,
    indices,
    (i) => i,
    readNodes,
    (missing, { mmrEnd }) => archivedMmrNodes(src, tenantId, missing, mmrEnd),
  );
}

/** Tree nodes: from the database, those it no longer holds from the archive. */
export function treeNodesOf(
  src: NodeSource,
  tenantId: string,
  coords: NodeCoord[],
): Promise<Map<string, Uint8Array>> {
  return nodesOf(
    src,
    tenantId,
    coords,
    (c) => nodeKey(c.level, c.idx),
    readTlogNodes,
    (missing, { end }) => archivedTreeNodes(src, tenantId, missing, end),
  );
}

/** `withNodes` (store/ledger/tlog-tiles.ts) over the database and the archive. */
export function withTreeNodes<T>(
  src: NodeSource,
  tenantId: string,
  run: (get: PerfectHash) => T,
): Promise<T> {
  return withNodesRead((coords) => treeNodesOf(src, tenantId, coords), tenantId, run);
}

/** The tree's hashes at `level` for indices [from, to), in order; shorter when the tree has fewer. */
export async function treeLevelOf(
  src: NodeSource,
  tenantId: string,
  level: number,
  from: number,
  to: number,
): Promise<Uint8Array[]> {
  const coords = Array.from({ length: to - from }, (_, k) => ({ level, idx: from + k }));
  const nodes = await treeNodesOf(src, tenantId, coords);
  const out: Uint8Array[] = [];
  for (const c of coords) {
    const h = nodes.get(nodeKey(c.level, c.idx));
    if (!h) break;
    out.push(h);
  }
  return out;
}
