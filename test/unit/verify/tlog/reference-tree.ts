import { createHash } from "node:crypto";
import { formatEntryBundle } from "../../../../src/core/log/tlog-format.js";
import type { TileRef } from "../../../../src/formats/tlog/index.js";

/** SHA-256 of the concatenated parts. */
export const sha = (...parts: Uint8Array[]): Uint8Array => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

/** An independent reference: MTH straight from RFC 9162 §2.1.1 over the entries. */
export function mth(entries: Uint8Array[]): Uint8Array {
  if (entries.length === 0) return sha();
  if (entries.length === 1) return sha(Uint8Array.of(0), entries[0] as Uint8Array);
  let k = 1;
  while (k * 2 < entries.length) k *= 2;
  return sha(Uint8Array.of(1), mth(entries.slice(0, k)), mth(entries.slice(k)));
}

/** RFC 9162 §2.1.3.1 PATH(m, D[n]), straight from the definition. */
export function inclusionPath(m: number, d: Uint8Array[]): Uint8Array[] {
  if (d.length <= 1) return [];
  let k = 1;
  while (k * 2 < d.length) k *= 2;
  return m < k
    ? [...inclusionPath(m, d.slice(0, k)), mth(d.slice(k))]
    : [...inclusionPath(m - k, d.slice(k)), mth(d.slice(0, k))];
}

/** The perfect subtree (level, index) of a list of entries. */
export const perfect = (entries: Uint8Array[]) => (level: number, index: number) =>
  mth(entries.slice(index * 2 ** level, (index + 1) * 2 ** level));

/** Tiles made directly per the spec: hash i of tile (l, n) is MTH(D[(n·256+i)·256^l : …]). */
export function referenceTiles(entries: Uint8Array[]) {
  const get = perfect(entries);
  return async (t: TileRef): Promise<Uint8Array> => {
    if (t.level === "entries")
      return formatEntryBundle(entries.slice(t.index * 256, t.index * 256 + t.width));
    const out = new Uint8Array(t.width * 32);
    for (let i = 0; i < t.width; i++) out.set(get(8 * t.level, t.index * 256 + i), i * 32);
    return out;
  };
}
