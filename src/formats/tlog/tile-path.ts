/**
 * C2SP tlog-tiles resource names: `tile/<L>/<N>[.p/<W>]` and `tile/entries/<N>[.p/<W>]`, the
 * index in zero-padded three-digit elements, all but the last prefixed with `x`.
 */
export const TILE_WIDTH = 256;
/** Tree levels per tile level: a tile is a subtree of height 8. */
export const TILE_HEIGHT = 8;

export interface TileRef {
  /** Tile level, or "entries" for an entry bundle. */
  level: number | "entries";
  index: number;
  /** 256 for a full tile, 1..255 for a partial one. */
  width: number;
}

export function encodeTileIndex(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`bad tile index ${n}`);
  let digits = String(n);
  digits = digits.padStart(Math.ceil(digits.length / 3) * 3, "0");
  const groups = digits.match(/.{3}/g) as string[];
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join("/");
}

export function tilePath(t: TileRef): string {
  const base = `tile/${t.level}/${encodeTileIndex(t.index)}`;
  return t.width === TILE_WIDTH ? base : `${base}.p/${t.width}`;
}

/** Parses the part after `tile/`, or undefined when it is not a well-formed tile name. */
export function parseTilePath(path: string): TileRef | undefined {
  const m = /^(0|[1-9][0-9]?|entries)\/((?:x[0-9]{3}\/)*)([0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/.exec(path);
  if (!m) return undefined;
  const level = m[1] === "entries" ? "entries" : Number(m[1]);
  if (typeof level === "number" && level > 63) return undefined;
  const digits = `${(m[2] ?? "").replace(/x|\//g, "")}${m[3]}`;
  // Only the canonical encoding names a tile: no leading all-zero groups.
  if (digits.length > 3 && digits.startsWith("000")) return undefined;
  const index = Number(digits);
  if (!Number.isSafeInteger(index)) return undefined;
  const width = m[4] === undefined ? TILE_WIDTH : Number(m[4]);
  if (width >= TILE_WIDTH && m[4] !== undefined) return undefined;
  return { level, index, width };
}

/** Hashes a level-`level` tile spans at tree level 8·level: 256^level leaves each. */
const span = (level: number) => TILE_WIDTH ** level;

/**
 * The width a tile has in a tree of `size` leaves: 256 when full, else the partial width, 0
 * when the tile does not exist yet. Entry bundles have level 0's widths.
 */
export function tileWidth(level: number | "entries", index: number, size: number): number {
  const l = level === "entries" ? 0 : level;
  const hashes = Math.floor(size / span(l)) - index * TILE_WIDTH;
  return Math.max(0, Math.min(TILE_WIDTH, hashes));
}

/**
 * Every tile (and entry bundle) of a tree of `size` leaves, as a mirror copies them, one at a
 * time: a claimed size never makes a list of its tiles in memory.
 */
export function* eachTile(size: number, withEntries = true): Generator<TileRef> {
  for (let level = 0; Math.floor(size / span(level)) > 0; level++) {
    const count = Math.ceil(Math.floor(size / span(level)) / TILE_WIDTH);
    for (let index = 0; index < count; index++) {
      const width = tileWidth(level, index, size);
      yield { level, index, width };
      if (level === 0 && withEntries) yield { level: "entries", index, width };
    }
  }
}

/** How many tiles (and entry bundles) `eachTile` yields for a tree of `size` leaves. */
export function tileCount(size: number, withEntries = true): number {
  let n = 0;
  for (let level = 0; Math.floor(size / span(level)) > 0; level++) {
    const count = Math.ceil(Math.floor(size / span(level)) / TILE_WIDTH);
    n += level === 0 && withEntries ? 2 * count : count;
  }
  return n;
}

/** Every tile (and entry bundle) of a tree of `size` leaves, as a list (small trees only). */
export const tilesOf = (size: number, withEntries = true): TileRef[] => [...eachTile(size, withEntries)];
