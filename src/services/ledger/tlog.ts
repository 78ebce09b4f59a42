import type { Ctx } from "../../context.js";
import { mlDsa44Keys } from "../../core/log/ml-dsa-sign.js";
import { formatVkey } from "../../core/log/note-sign.js";
import { formatEntryBundle } from "../../core/log/tlog-format.js";
import { notFound } from "../../errors/api-error.js";
import { ED25519 } from "../../formats/tlog/keys.js";
import { ML_DSA_44 } from "../../formats/tlog/ml-dsa.js";
import {
  parseTilePath,
  TILE_HEIGHT,
  TILE_WIDTH,
  type TileRef,
  tilePath,
  tileWidth,
} from "../../formats/tlog/tile-path.js";
import { archivedExtent, archivedObject, treeLevelOf } from "../../store/archive/period-archive.js";
import {
  cosignaturesOf,
  latestCheckpoint,
  originOf,
  publishedCheckpoint,
  TLOG_KEY,
  TLOG_ML_DSA_KEY,
} from "../../store/ledger/tlog-checkpoints.js";
import { leafEntries } from "../../store/ledger/tlog-tiles.js";
import { readNodeSource } from "./node-source.js";

/**
 * A tenancy's log as C2SP tlog-tiles. All of it is public log material, as the seals and
 * consistency proofs are: tiles hold hashes, entry bundles the leaves' data, which are the
 * records' 32-byte leaf hashes (never the records), so a tile reveals no more than a record's
 * public receipt does.
 */

/**
 * The checkpoint with its witnesses' cosignatures: the newest one a quorum cosigned, or the
 * newest when none has (or no witnesses are configured).
 */
export async function checkpointNote(ctx: Pick<Ctx, "reads">, tenantId: string): Promise<string> {
  const cp = await publishedCheckpoint(ctx.reads, tenantId);
  if (!cp) throw notFound("checkpoint");
  const cosignatures = await cosignaturesOf(ctx.reads, tenantId, cp.size);
  return `${cp.note}${cosignatures.map((c) => c.signature_line).join("")}`;
}

/**
 * The log's verification key in the vkey text format, named by the log's origin; none before
 * the log's first checkpoint, which fixes the origin.
 */
export async function logVkey(ctx: Pick<Ctx, "reads" | "keys">, tenantId: string): Promise<string> {
  const origin = await originOf(ctx.reads, tenantId);
  if (!origin) throw notFound("log");
  const key = await ctx.keys.get(TLOG_KEY, "Ed25519");
  const x = key.publicJwk.x;
  if (typeof x !== "string") throw new Error("the log key has no public Ed25519 point");
  return formatVkey(origin, ED25519, new Uint8Array(Buffer.from(x, "base64url")));
}

/**
 * The log's ML-DSA-44 checkpoint key (signed-note vkey, type 0x06), named by the origin: every
 * checkpoint carries its signature beside the Ed25519 one.
 */
export async function logMlDsaVkey(ctx: Pick<Ctx, "reads" | "keys">, tenantId: string): Promise<string> {
  const origin = await originOf(ctx.reads, tenantId);
  if (!origin) throw notFound("log");
  const seed = await ctx.keys.seed(TLOG_ML_DSA_KEY, "ML-DSA-44");
  return formatVkey(origin, ML_DSA_44, mlDsa44Keys(seed).publicKey);
}

// Full tiles never change, so the last ones served are kept in the context's `caches.fullTiles`
// (level-0 tiles and bundles are ~8 KiB; 2,048 of them ~17 MiB): a mirror or a CDN filling its
// cache reads each one once.
const FULL_TILES_KEPT = 2048;

function keep(fullTiles: Map<string, Uint8Array>, key: string, bytes: Uint8Array): Uint8Array {
  if (fullTiles.size >= FULL_TILES_KEPT) fullTiles.delete(fullTiles.keys().next().value as string);
  fullTiles.set(key, bytes);
  return bytes;
}

/** A tile or entry bundle named by the path after `tile/`; 404 when there is no such tile. */
export async function tileBytes(
  ctx: Pick<Ctx, "blobs" | "caches" | "reads">,
  tenantId: string,
  path: string,
): Promise<Uint8Array> {
  const ref = parseTilePath(path);
  if (!ref) throw notFound("tile");
  const key = `${tenantId}/${path}`;
  const kept = ctx.caches.fullTiles.get(key);
  if (kept) return kept;
  const bytes = await readTile(ctx, tenantId, ref);
  return ref.width === TILE_WIDTH ? keep(ctx.caches.fullTiles, key, bytes) : bytes;
}

async function readTile(
  ctx: Pick<Ctx, "blobs" | "reads">,
  tenantId: string,
  ref: TileRef,
): Promise<Uint8Array> {
  // Tiles exist as far as the newest checkpoint reaches (a full tile of a later size only once checkpointed).
  const newest = await latestCheckpoint(ctx.reads, tenantId);
  if (!newest || ref.width > tileWidth(ref.level, ref.index, newest.size)) throw notFound("tile");
  // A closed period's tiles are served from object storage once moved there (docs/scaling.md).
  const { end } = await archivedExtent(ctx.reads, tenantId);
  if (end > 0 && ref.width <= tileWidth(ref.level, ref.index, end)) {
    const archived = await archivedObject(readNodeSource(ctx), tenantId, tilePath(ref));
    if (archived) return archived;
  }
  const first = ref.index * TILE_WIDTH;
  if (ref.level === "entries") {
    return formatEntryBundle(await leafEntries(ctx.reads, tenantId, first, ref.width));
  }
  const hashes = await treeLevelOf(
    readNodeSource(ctx),
    tenantId,
    ref.level * TILE_HEIGHT,
    first,
    first + ref.width,
  );
  if (hashes.length !== ref.width) throw notFound("tile");
  return Buffer.concat(hashes);
}
