import { MAX_TREE_SIZE } from "./coords.js";
import { type Hash, nodeHash, sameHash } from "./hash.js";

const validSize = (n: number) => Number.isSafeInteger(n) && n >= 0 && n <= MAX_TREE_SIZE;
const odd = (n: number) => n % 2 === 1;
const half = (n: number) => Math.floor(n / 2);

/**
 * The root an RFC 9162 §2.1.3.2 inclusion proof leads to, or undefined when the proof cannot
 * belong to a tree of that size (wrong length, index out of range).
 */
export function rootFromInclusionProof(
  index: number,
  size: number,
  leaf: Hash,
  proof: Hash[],
): Hash | undefined {
  if (!validSize(size) || !Number.isSafeInteger(index) || index < 0 || index >= size) return undefined;
  if (leaf.length !== 32 || !proof.every((p) => p.length === 32)) return undefined;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return undefined;
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      if (!odd(fn))
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
    } else r = nodeHash(r, p);
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 ? r : undefined;
}

/** True when the proof shows the leaf hash at `index` under `root` (RFC 9162 §2.1.3.2). */
export function verifyInclusion(index: number, size: number, leaf: Hash, proof: Hash[], root: Hash): boolean {
  const r = rootFromInclusionProof(index, size, leaf, proof);
  return r !== undefined && sameHash(r, root);
}

/** True when the tree of `to` leaves with `rootTo` extends the one of `from` with `rootFrom` (RFC 9162 §2.1.4.2). */
export function verifyConsistency(
  from: number,
  to: number,
  rootFrom: Hash,
  rootTo: Hash,
  proof: Hash[],
): boolean {
  if (!validSize(from) || !validSize(to) || from < 1 || from > to) return false;
  if (from === to) return proof.length === 0 && sameHash(rootFrom, rootTo);
  if (rootFrom.length !== 32 || rootTo.length !== 32 || !proof.every((p) => p.length === 32)) return false;
  if (proof.length === 0) return false;
  let path = proof;
  let pow2 = 1;
  while (pow2 < from) pow2 *= 2;
  if (pow2 === from) path = [rootFrom, ...proof];
  let fn = from - 1;
  let sn = to - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0] as Hash;
  let sr = path[0] as Hash;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!odd(fn))
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
    } else sr = nodeHash(sr, c);
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && sameHash(fr, rootFrom) && sameHash(sr, rootTo);
}
