import { createHash } from "node:crypto";

/**
 * RFC 9162 (RFC 6962) SHA-256 Merkle tree arithmetic over perfect subtrees. The service keeps
 * every perfect subtree's hash (level k, index i: leaves [i·2^k, (i+1)·2^k)); everything else a
 * proof or a root needs is combined from those, so one getter serves roots, inclusion and
 * consistency proofs alike.
 */
export type Hash = Uint8Array;

/** The hash of the perfect subtree at `level`, `index`. */
export type PerfectHash = (level: number, index: number) => Hash;

const sha256 = (...parts: Uint8Array[]): Hash => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

/** MTH({}): the hash of the empty string. */
export const EMPTY_ROOT: Hash = sha256(new Uint8Array(0));

export const leafHash = (entry: Uint8Array): Hash => sha256(Uint8Array.of(0), entry);
export const nodeHash = (left: Hash, right: Hash): Hash => sha256(Uint8Array.of(1), left, right);

export function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= (a[i] as number) ^ (b[i] as number);
  return d === 0;
}

/** The largest power of two strictly below n (n ≥ 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function isPowerOfTwo(n: number): boolean {
  let p = 1;
  while (p < n) p *= 2;
  return p === n;
}

/** MTH(D[lo:hi]) for a range RFC 9162's recursion produces (lo a multiple of the range's left part). */
export function rangeHash(lo: number, hi: number, get: PerfectHash): Hash {
  const n = hi - lo;
  if (n <= 0) throw new RangeError(`empty range ${lo}..${hi}`);
  if (isPowerOfTwo(n)) {
    if (lo % n !== 0) throw new RangeError(`range ${lo}..${hi} is not a subtree`);
    let level = 0;
    while (2 ** level < n) level++;
    return get(level, lo / n);
  }
  const k = splitPoint(n);
  return nodeHash(rangeHash(lo, lo + k, get), rangeHash(lo + k, hi, get));
}

/** The root of the tree of `size` leaves. */
export function treeRoot(size: number, get: PerfectHash): Hash {
  return size === 0 ? EMPTY_ROOT : rangeHash(0, size, get);
}

/** RFC 9162 §2.1.3.1 PATH(index, D[0:size]), leaf to root. */
export function inclusionProof(index: number, size: number, get: PerfectHash): Hash[] {
  if (index < 0 || index >= size) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  const path: Hash[] = [];
  const walk = (m: number, lo: number, hi: number) => {
    if (hi - lo === 1) return;
    const k = splitPoint(hi - lo);
    if (m < k) {
      walk(m, lo, lo + k);
      path.push(rangeHash(lo + k, hi, get));
    } else {
      walk(m - k, lo + k, hi);
      path.push(rangeHash(lo, lo + k, get));
    }
  };
  walk(index, 0, size);
  return path;
}

/** RFC 9162 §2.1.4.1 PROOF(first, D[0:second]). */
export function consistencyProof(first: number, second: number, get: PerfectHash): Hash[] {
  if (first < 0 || first > second) throw new RangeError(`no consistency proof from ${first} to ${second}`);
  if (first === 0 || first === second) return [];
  const proof: Hash[] = [];
  const sub = (m: number, lo: number, hi: number, whole: boolean) => {
    const n = hi - lo;
    if (m === n) {
      if (!whole) proof.push(rangeHash(lo, hi, get));
      return;
    }
    const k = splitPoint(n);
    if (m <= k) {
      sub(m, lo, lo + k, whole);
      proof.push(rangeHash(lo + k, hi, get));
    } else {
      sub(m - k, lo + k, hi, false);
      proof.push(rangeHash(lo, lo + k, get));
    }
  };
  sub(first, 0, second, true);
  return proof;
}

const allHashes = (hs: Uint8Array[]) => hs.every((h) => h.length === 32);

/** RFC 9162 §2.1.3.2: whether `proof` puts the leaf hash at `index` under `root`. */
export function verifyInclusion(index: number, size: number, leaf: Hash, proof: Hash[], root: Hash): boolean {
  if (!Number.isSafeInteger(index) || index < 0 || index >= size) return false;
  if (!allHashes([leaf, root, ...proof])) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else r = nodeHash(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameHash(r, root);
}

/** RFC 9162 §2.1.4.2: whether `proof` shows the tree of `second` leaves extends the one of `first`. */
export function verifyConsistency(
  first: number,
  second: number,
  firstRoot: Hash,
  secondRoot: Hash,
  proof: Hash[],
): boolean {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 0 || first > second)
    return false;
  // Every tree extends the empty one; there is no proof of it to check (witnesses special-case size 0).
  if (first === 0) return false;
  if (first === second) return proof.length === 0 && sameHash(firstRoot, secondRoot);
  if (!allHashes([firstRoot, secondRoot, ...proof])) return false;
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(first) ? [firstRoot, ...proof] : proof;
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0] as Hash;
  let sr = path[0] as Hash;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else sr = nodeHash(sr, c);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameHash(fr, firstRoot) && sameHash(sr, secondRoot);
}

/**
 * The perfect subtrees a computation reads, found by running it over placeholder hashes (which
 * subtrees it reads never depends on their values): the store fetches exactly these in one go.
 */
export function perfectHashesRead(run: (get: PerfectHash) => unknown): Array<[number, number]> {
  const seen = new Map<string, [number, number]>();
  const zero = new Uint8Array(32);
  run((level, index) => {
    seen.set(`${level}/${index}`, [level, index]);
    return zero;
  });
  return [...seen.values()];
}
