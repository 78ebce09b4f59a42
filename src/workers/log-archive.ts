import { formatEntryBundle } from "../core/log/tlog-format.js";
import { frontier } from "../core/log/tree-append.js";
import { CodedError } from "../formats/coded-error.js";
import { peakIndices } from "../formats/mmr/indices.js";
import { sameHash } from "../formats/rfc9162/hash.js";
import { treeRoot } from "../formats/rfc9162/tree.js";
import { eachTile, TILE_HEIGHT, TILE_WIDTH, tilePath } from "../formats/tlog/tile-path.js";
import {
  archivedExtent,
  archivedMmrNodes,
  archivedNames,
  archivedTreeNodes,
  MMR_CHUNK,
  mmrChunkName,
  mmrNodesOf,
  recordArchived,
  storeObject,
  treeLevelOf,
} from "../store/archive/period-archive.js";
import type { BlobStore } from "../store/blobstore/blob-store.js";
import type { Db, Queryable } from "../store/drivers/db.js";
import { lockLog, readNodes } from "../store/ledger/ledger.js";
import {
  dropArchivedNodes,
  markArchived,
  periodsToArchive,
  periodsToDrop,
} from "../store/ledger/log-periods.js";
import { checkpointAt, cosignaturesOf } from "../store/ledger/tlog-checkpoints.js";
import { nodeKey } from "../store/ledger/tlog-nodes.js";
import { leafEntries } from "../store/ledger/tlog-tiles.js";

/** An archive that does not reproduce what was signed: nothing is marked archived, nothing dropped. */
class ArchiveError extends CodedError<"ARCHIVE_MISMATCH"> {
  readonly code = "ARCHIVE_MISMATCH";
}

interface Archiving {
  db: Db;
  blobs: BlobStore;
  /** Where an object is written before the blob store takes it. */
  tmpDir: string;
}

/**
 * Checks that the archive alone (as `tx` names it) gives the tree's root at `end`, as the final
 * checkpoint signed it, and the MMR's peaks at `mmrEnd`, as the database (which always keeps
 * them) has them.
 */
async function checkArchive(tx: Queryable, blobs: BlobStore, tenantId: string, end: number, mmrEnd: number) {
  const src = { db: tx, blobs };
  const cp = await checkpointAt(tx, tenantId, end);
  if (!cp) throw new ArchiveError(`log ${tenantId} has no checkpoint at ${end} entries`);
  const coords = frontier(end);
  const nodes = await archivedTreeNodes(src, tenantId, coords, end);
  const root = coords.every((c) => nodes.has(nodeKey(c.level, c.idx)))
    ? treeRoot(end, (level, idx) => nodes.get(nodeKey(level, idx)) as Uint8Array)
    : undefined;
  if (!root || !sameHash(root, cp.root))
    throw new ArchiveError(
      `the archive of log ${tenantId} does not give the root of its checkpoint at ${end}`,
    );
  const peaks = peakIndices(mmrEnd);
  const archived = await archivedMmrNodes(src, tenantId, peaks, mmrEnd);
  const kept = await readNodes(tx, tenantId, peaks);
  for (const p of peaks) {
    const a = archived.get(p);
    const k = kept.get(p);
    if (!a || !k || !sameHash(a, k))
      throw new ArchiveError(`the archive of log ${tenantId} does not give MMR peak ${p} at size ${mmrEnd}`);
  }
}

/**
 * Moves the tenancy's closed, not yet archived periods to the blob store (docs/scaling.md,
 * "Closed periods leave the database"): every C2SP tile and entry bundle of the tree at the last
 * one's final size, the MMR's nodes up to its final seal, and each period's final checkpoint
 * with its cosignatures. Objects already archived (full tiles of earlier periods) are not stored
 * again. The objects are stored first, then named and the periods marked in one transaction,
 * once the archive alone gives the final checkpoint's root and the seal's peaks: a crash before
 * leaves unnamed objects, which the next run stores again (by content, so once). Returns the
 * periods archived and how many objects were stored.
 */
export async function archiveClosedPeriods(
  a: Archiving,
  tenantId: string,
): Promise<{ periods: number[]; objects: number } | undefined> {
  const rows = await periodsToArchive(a.db, tenantId);
  const last = rows.at(-1);
  if (!last || last.end_size === undefined) return undefined;
  const end = last.end_size;
  const cp = await checkpointAt(a.db, tenantId, end);
  if (!cp) throw new ArchiveError(`log ${tenantId} has no checkpoint at ${end} entries`);
  const mmrEnd = cp.mmr_size;
  const src = { db: a.db, blobs: a.blobs };
  const names = await archivedNames(a.db, tenantId);
  const objects: Array<{ name: string; sha256: string }> = [];
  const put = async (name: string, bytes: Uint8Array) => {
    objects.push({ name, sha256: await storeObject(a.blobs, a.tmpDir, bytes) });
  };
  for (const ref of eachTile(end)) {
    const name = tilePath(ref);
    if (names.has(name)) continue;
    const first = ref.index * TILE_WIDTH;
    if (ref.level === "entries") {
      await put(name, formatEntryBundle(await leafEntries(a.db, tenantId, first, ref.width)));
      continue;
    }
    const hashes = await treeLevelOf(src, tenantId, ref.level * TILE_HEIGHT, first, first + ref.width);
    if (hashes.length !== ref.width) throw new ArchiveError(`log ${tenantId} lacks hashes of ${name}`);
    await put(name, Buffer.concat(hashes));
  }
  for (let chunk = 0; chunk * MMR_CHUNK < mmrEnd; chunk++) {
    const name = mmrChunkName(chunk, mmrEnd);
    if (names.has(name)) continue;
    const indices = Array.from(
      { length: Math.min(MMR_CHUNK, mmrEnd - chunk * MMR_CHUNK) },
      (_, k) => chunk * MMR_CHUNK + k,
    );
    const nodes = await mmrNodesOf(src, tenantId, indices);
    if (nodes.size !== indices.length) throw new ArchiveError(`log ${tenantId} lacks MMR nodes of ${name}`);
    await put(name, Buffer.concat(indices.map((i) => nodes.get(i) as Uint8Array)));
  }
  for (const r of rows) {
    const final = r.end_size === undefined ? undefined : await checkpointAt(a.db, tenantId, r.end_size);
    if (!final) throw new ArchiveError(`log ${tenantId}'s period ${r.period} has no final checkpoint`);
    const cosignatures = await cosignaturesOf(a.db, tenantId, final.size);
    await put(
      `periods/${r.period}/checkpoint`,
      new TextEncoder().encode(`${final.note}${cosignatures.map((c) => c.signature_line).join("")}`),
    );
  }
  const periods = rows.map((r) => r.period);
  await a.db.transaction(async (tx) => {
    await recordArchived(tx, tenantId, objects);
    await checkArchive(tx, a.blobs, tenantId, end, mmrEnd);
    await markArchived(tx, tenantId, periods, mmrEnd);
  });
  return { periods, objects: objects.length };
}

/**
 * Drops the node rows of the tenancy's archived periods from the database, in one transaction
 * under the log's lock, after checking again that the archive gives the final root and peaks.
 * Proofs of their records are then read from the archive (store/archive/period-archive.ts). Returns how
 * many rows left, or undefined when no archived period still has them.
 */
export async function dropArchivedPeriods(
  a: Pick<Archiving, "db" | "blobs">,
  tenantId: string,
): Promise<{ periods: number[]; tree: number; mmr: number } | undefined> {
  return a.db.transaction(async (tx) => {
    await lockLog(tx, tenantId);
    const periods = await periodsToDrop(tx, tenantId);
    if (periods.length === 0) return undefined;
    const { end, mmrEnd } = await archivedExtent(tx, tenantId);
    await checkArchive(tx, a.blobs, tenantId, end, mmrEnd);
    const dropped = await dropArchivedNodes(tx, {
      tenantId,
      periods,
      end,
      mmrEnd,
      keepTree: frontier(end),
      keepMmr: peakIndices(mmrEnd),
    });
    return { periods, ...dropped };
  });
}
