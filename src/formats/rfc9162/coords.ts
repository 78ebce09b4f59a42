/**
 * Where the stored perfect subtrees are. `level` k, `idx` i is the subtree over leaves
 * [i·2^k, (i+1)·2^k); level 0 holds the leaf hashes. Every hash the tree's root and proofs
 * need is a right fold of such subtrees, so the store keeps only these and never rewrites one.
 */
export interface NodeCoord {
  level: number;
  idx: number;
}

/** Reads a stored perfect subtree (the store preloads what an operation needs). */
export type NodeGetter = (level: number, idx: number) => Uint8Array;

/** Tree sizes and indices handled exactly (well inside the safe integers). */
export const MAX_TREE_SIZE = 2 ** 48;

function checkSize(n: number): void {
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_TREE_SIZE)
    throw new RangeError(`tree size ${n} is out of range`);
}

/** The largest power of two strictly below n (n ≥ 2): RFC 9162's split point k. */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function log2Exact(n: number): number | undefined {
  let level = 0;
  for (let p = 1; p <= n; p *= 2, level++) if (p === n) return level;
  return undefined;
}

/**
 * The perfect subtrees whose right fold is MTH(D[a:b]), left to right. RFC 9162 splits a
 * range at the largest power of two below its length, and every range its recursions reach
 * starts at a multiple of that power, so the left part is always one stored subtree.
 */
export function rangeNodes(a: number, b: number): NodeCoord[] {
  checkSize(b);
  if (!(Number.isSafeInteger(a) && a >= 0 && a < b)) throw new RangeError(`empty range [${a}, ${b})`);
  const out: NodeCoord[] = [];
  for (;;) {
    const n = b - a;
    const level = log2Exact(n);
    if (level !== undefined && a % n === 0) {
      out.push({ level, idx: a / n });
      return out;
    }
    const k = splitPoint(n);
    if (a % k !== 0) throw new RangeError(`range [${a}, ${b}) is not one RFC 9162 subtree`);
    out.push({ level: log2Exact(k) as number, idx: a / k });
    a += k;
  }
}

/** RFC 9162 §2.1.3.1 PATH(m, D[0:n]) as the ranges whose hashes it lists, leaf side first. */
export function inclusionRanges(m: number, n: number): Array<[number, number]> {
  checkSize(n);
  if (!Number.isSafeInteger(m) || m < 0 || m >= n)
    throw new RangeError(`leaf ${m} is not in a tree of size ${n}`);
  const out: Array<[number, number]> = [];
  let a = 0;
  let b = n;
  while (b - a > 1) {
    const k = splitPoint(b - a);
    if (m < a + k) {
      out.push([a + k, b]);
      b = a + k;
    } else {
      out.push([a, a + k]);
      a += k;
    }
  }
  return out.reverse();
}

/** RFC 9162 §2.1.4.1 PROOF(m, D[0:n]) as ranges, in the proof's order. Empty when m = n. */
export function consistencyRanges(m: number, n: number): Array<[number, number]> {
  checkSize(n);
  if (!Number.isSafeInteger(m) || m < 1 || m > n)
    throw new RangeError(`no consistency proof from size ${m} to ${n}`);
  const out: Array<[number, number]> = [];
  let a = 0;
  let b = n;
  let complete = true;
  while (m !== b) {
    const k = splitPoint(b - a);
    if (m <= a + k) {
      out.push([a + k, b]);
      b = a + k;
    } else {
      out.push([a, a + k]);
      a += k;
      complete = false;
    }
  }
  if (!complete) out.push([a, b]);
  return out.reverse();
}
