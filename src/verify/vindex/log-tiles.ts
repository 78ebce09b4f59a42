// The log's tiles read at any size up to a checkpoint's, from the tiles of that checkpoint alone: a
// mirror holds each partial tile at its own checkpoint's width only, and a tile of a smaller tree is
// the first hashes (or entries) of the one at the checkpoint (C2SP tlog-tiles: tiles only grow).
import { sameBytes } from "../../formats/crypto/bytes.js";
import { TILE_WIDTH, tilePath, tileWidth } from "../../formats/tlog/tile-path.js";
import { parseEntryBundle, type TileFetch } from "../../formats/tlog/tiles.js";

/** Bytes of the first `count` entries of an entry bundle (each a uint16 length, then its bytes). */
function bundlePrefix(bundle: Uint8Array, count: number, what: string): Uint8Array {
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 2 > bundle.length) throw new Error(`${what} holds fewer than ${count} entries`);
    at += 2 + (((bundle[at] as number) << 8) | (bundle[at + 1] as number));
  }
  if (at > bundle.length) throw new Error(`${what} ends inside an entry`);
  return bundle.subarray(0, at);
}

/**
 * A tile reader for trees up to `size` leaves that fetches each tile once, at its width in the
 * tree of `size`, and cuts the narrower widths a smaller tree asks for from it. At most `keep`
 * tiles are held (then they are fetched again): a log of millions of entries does not stay in memory.
 */
export function tilesAt(size: number, fetch: TileFetch, keep = 4096): TileFetch {
  const held = new Map<string, Promise<Uint8Array>>();
  return async (ref) => {
    const full = tileWidth(ref.level, ref.index, size);
    if (ref.width > full || ref.width < 1)
      throw new Error(`${tilePath(ref)} is not in the log's tree of ${size} entries`);
    const name = `${ref.level}/${ref.index}`;
    let bytes = held.get(name);
    if (!bytes) {
      if (held.size >= keep) held.clear();
      bytes = fetch({ level: ref.level, index: ref.index, width: full });
      held.set(name, bytes);
      // A failed fetch is not kept: the next reader asks again.
      bytes.catch(() => held.delete(name));
    }
    const tile = await bytes;
    if (ref.width === full) return tile;
    return ref.level === "entries"
      ? bundlePrefix(tile, ref.width, tilePath({ ...ref, width: full }))
      : tile.subarray(0, ref.width * 32);
  };
}

/**
 * Log entries' data read from the entry bundles of a tree of `size` leaves, the bundle last read
 * kept (records are checked in log order). The bundles are believed only once the tiles are
 * audited against the checkpoint (`auditTiles`), which checks each entry against its level-0 hash.
 */
export class EntryData {
  #index = -1;
  #entries: Uint8Array[] = [];

  constructor(
    private readonly size: number,
    private readonly fetch: TileFetch,
  ) {}

  /** The data of log entry `entry` (below the tree's size). */
  async at(entry: number): Promise<Uint8Array> {
    if (entry >= this.size) throw new Error(`log entry ${entry} is not in the log's tree of ${this.size}`);
    const index = Math.floor(entry / TILE_WIDTH);
    if (index !== this.#index) {
      const width = tileWidth("entries", index, this.size);
      this.#entries = parseEntryBundle(await this.fetch({ level: "entries", index, width }));
      this.#index = index;
    }
    const data = this.#entries[entry % TILE_WIDTH];
    if (!data) throw new Error(`entry bundle ${index} holds no entry ${entry}`);
    return data;
  }

  /** Whether log entry `entry` is one of `candidates`. */
  async holdsOneOf(entry: number, candidates: readonly Uint8Array[]): Promise<boolean> {
    const data = await this.at(entry);
    return candidates.some((c) => sameBytes(c, data));
  }
}
