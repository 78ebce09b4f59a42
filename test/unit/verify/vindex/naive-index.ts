// vindex/v1's index written out from docs/complete-trails.md, for the tests to hold the replay to:
// each key's list as a hash chain, committed with its salt, the commitments in the naive sparse
// Merkle tree of the trie's tests. node:crypto and none of the library's index code.
import { createHash } from "node:crypto";
import { naiveRoot } from "../../formats/vindex/naive.js";

const sha = (...parts: Uint8Array[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

const u64 = (n: number) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
};

/** commitment = SHA-256(0x02 ‖ salt ‖ u64be(n) ‖ c_n), c_k = SHA-256(0x03 ‖ c_{k-1} ‖ u64be(i_k)). */
function commitment(salt: Uint8Array, list: number[]): Uint8Array {
  let c = new Uint8Array(32);
  for (const i of list) c = sha(Uint8Array.of(3), c, u64(i));
  return sha(Uint8Array.of(2), salt, u64(list.length), c);
}

/** The index over every record below `size`: each key's entries in log order, under its position. */
export function naiveIndexRoot(
  records: ReadonlyArray<{ entry: number; keys: readonly string[] }>,
  places: ReadonlyMap<string, { position: Uint8Array; salt: Uint8Array }>,
  size: number,
): Uint8Array {
  const lists = new Map<string, number[]>();
  for (const r of [...records].sort((a, b) => a.entry - b.entry).filter((r) => r.entry < size))
    for (const k of r.keys) lists.set(k, [...(lists.get(k) ?? []), r.entry]);
  return naiveRoot(
    [...lists].map(([k, list]) => {
      const p = places.get(k);
      if (!p) throw new Error(`no place for ${k}`);
      return { position: p.position, value: commitment(p.salt, list) };
    }),
  );
}
