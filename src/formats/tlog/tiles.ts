import { CodedError } from "../coded-error.js";
import {
  eachTile,
  TILE_HEIGHT,
  TILE_WIDTH,
  type TileRef,
  tileCount,
  tilePath,
  tileWidth,
} from "./tile-path.js";
import {
  type Hash,
  inclusionProof,
  leafHash,
  nodeHash,
  type PerfectHash,
  perfectHashesRead,
  sameHash,
  treeRoot,
  verifyInclusion,
} from "./tree.js";

/** Reads one tile or entry bundle (from a service, a mirror directory, a CDN). */
export type TileFetch = (tile: TileRef) => Promise<Uint8Array>;

class TileError extends CodedError<"TILE_INVALID"> {
  readonly code = "TILE_INVALID";
}

/** The tile holding the perfect subtree (level, index) and where in it. */
function locate(level: number, index: number) {
  const tileLevel = Math.floor(level / TILE_HEIGHT);
  const below = level % TILE_HEIGHT;
  const first = index * 2 ** below;
  return {
    tileLevel,
    tileIndex: Math.floor(first / TILE_WIDTH),
    offset: first % TILE_WIDTH,
    count: 2 ** below,
  };
}

/**
 * Runs a tree computation over the hashes in a tree's tiles: fetches the tiles it needs (each
 * at its width for `size`, in parallel), checks their lengths, and combines hashes within a
 * tile for subtrees between tile levels.
 */
async function withTiles<T>(size: number, fetch: TileFetch, run: (get: PerfectHash) => T): Promise<T> {
  const tiles = new Map<string, TileRef>();
  for (const [level, index] of perfectHashesRead(run)) {
    const at = locate(level, index);
    const width = tileWidth(at.tileLevel, at.tileIndex, size);
    if (width < at.offset + at.count)
      throw new TileError(`subtree ${level}/${index} is not in a tree of ${size}`);
    const ref = { level: at.tileLevel, index: at.tileIndex, width };
    tiles.set(tilePath(ref), ref);
  }
  const bytes = new Map<string, Uint8Array>();
  await Promise.all(
    [...tiles.entries()].map(async ([path, ref]) => {
      const b = await fetch(ref);
      if (b.length !== ref.width * 32)
        throw new TileError(`${path} is ${b.length} bytes, not ${ref.width * 32}`);
      bytes.set(`${ref.level}/${ref.index}`, b);
    }),
  );
  const get: PerfectHash = (level, index) => {
    const at = locate(level, index);
    const tile = bytes.get(`${at.tileLevel}/${at.tileIndex}`) as Uint8Array;
    let row: Hash[] = [];
    for (let i = 0; i < at.count; i++)
      row.push(tile.subarray((at.offset + i) * 32, (at.offset + i + 1) * 32));
    while (row.length > 1) {
      const up: Hash[] = [];
      for (let i = 0; i < row.length; i += 2) up.push(nodeHash(row[i] as Hash, row[i + 1] as Hash));
      row = up;
    }
    return row[0] as Hash;
  };
  return run(get);
}

/** A tree's root recomputed from its tiles. */
export const rootFromTiles = (size: number, fetch: TileFetch): Promise<Hash> =>
  withTiles(size, fetch, (get) => treeRoot(size, get));

/** Entry bundles: each entry a big-endian uint16 length, then its bytes (the log writes them: core/log/tlog-format.ts). */
export function parseEntryBundle(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + 2 > bytes.length) throw new TileError("entry bundle ends inside a length");
    const n = ((bytes[at] as number) << 8) | (bytes[at + 1] as number);
    if (at + 2 + n > bytes.length) throw new TileError("entry bundle ends inside an entry");
    out.push(bytes.slice(at + 2, at + 2 + n));
    at += 2 + n;
  }
  return out;
}

export type TileInclusion = { ok: true } | { ok: false; reason: string };

/**
 * Whether the log entry `entry` is leaf `index` of the tree of `size` leaves with `root`, read
 * from tiles alone: the entry bundle holds it, the level-0 tile holds its hash, the tiles'
 * inclusion path leads to the root, and the tiles recompute that root.
 */
export async function verifyEntryInTiles(
  index: number,
  entry: Uint8Array,
  size: number,
  root: Hash,
  fetch: TileFetch,
): Promise<TileInclusion> {
  if (index >= size) return { ok: false, reason: `leaf ${index} is not in the checkpoint's tree of ${size}` };
  try {
    const bundleIndex = Math.floor(index / TILE_WIDTH);
    const bundle = parseEntryBundle(
      await fetch({ level: "entries", index: bundleIndex, width: tileWidth("entries", bundleIndex, size) }),
    );
    const inBundle = bundle[index % TILE_WIDTH];
    if (!inBundle || !sameHash(inBundle, entry))
      return { ok: false, reason: `entry bundle ${bundleIndex} does not hold this record at ${index}` };
    const leaf = leafHash(entry);
    const { tileLeaf, computed, proof } = await withTiles(size, fetch, (get) => ({
      tileLeaf: get(0, index),
      computed: treeRoot(size, get),
      proof: inclusionProof(index, size, get),
    }));
    if (!sameHash(tileLeaf, leaf))
      return { ok: false, reason: `the level-0 tile's hash of leaf ${index} differs` };
    if (!sameHash(computed, root))
      return { ok: false, reason: "the tiles do not recompute the checkpoint's root" };
    if (!verifyInclusion(index, size, leaf, proof, root))
      return { ok: false, reason: "the tiles' inclusion path does not lead to the root" };
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

/** MTH over the 256 hashes of a full tile: the hash its level above holds for it. */
function fullTileHash(tile: Uint8Array): Hash {
  let row: Hash[] = [];
  for (let i = 0; i < TILE_WIDTH; i++) row.push(tile.subarray(i * 32, (i + 1) * 32));
  while (row.length > 1) {
    const up: Hash[] = [];
    for (let i = 0; i < row.length; i += 2) up.push(nodeHash(row[i] as Hash, row[i + 1] as Hash));
    row = up;
  }
  return row[0] as Hash;
}

/**
 * Checks a whole tree's tiles against each other and a root (a mirror's audit): every entry
 * hashes to its level-0 hash, every full tile hashes to its place in the tile above, and the
 * tiles recompute the root. Reads each tile once per level pair; `progress` counts tiles.
 */
export async function auditTiles(
  size: number,
  root: Hash,
  fetch: TileFetch,
  progress: (done: number, total: number) => void = () => undefined,
): Promise<TileInclusion> {
  try {
    const total = tileCount(size);
    let done = 0;
    const read = async (ref: TileRef) => {
      const b = await fetch(ref);
      if (ref.level !== "entries" && b.length !== ref.width * 32)
        throw new TileError(`${tilePath(ref)} is ${b.length} bytes, not ${ref.width * 32}`);
      return b;
    };
    for (const ref of eachTile(size)) {
      if (ref.level === "entries") {
        const entries = parseEntryBundle(await read(ref));
        const hashes = await read({ level: 0, index: ref.index, width: ref.width });
        if (entries.length !== ref.width)
          throw new TileError(`${tilePath(ref)} holds ${entries.length} entries`);
        entries.forEach((e, i) => {
          if (!sameHash(leafHash(e), hashes.subarray(i * 32, (i + 1) * 32)))
            throw new TileError(`entry ${ref.index * TILE_WIDTH + i} does not hash to its level-0 tile hash`);
        });
      } else if (ref.width === TILE_WIDTH) {
        const up = Math.floor(ref.index / TILE_WIDTH);
        const above = await read({
          level: ref.level + 1,
          index: up,
          width: tileWidth(ref.level + 1, up, size),
        });
        const at = ref.index % TILE_WIDTH;
        if (!sameHash(fullTileHash(await read(ref)), above.subarray(at * 32, (at + 1) * 32)))
          throw new TileError(`${tilePath(ref)} does not hash to its place in the tile above`);
      }
      progress(++done, total);
    }
    if (!sameHash(await rootFromTiles(size, fetch), root))
      return { ok: false, reason: "the tiles do not recompute the checkpoint's root" };
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}
