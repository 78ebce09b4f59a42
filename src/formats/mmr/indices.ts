/** Largest MMR index handled exactly (positions stay below 2^53). */
const MAX_MMR_INDEX = 2 ** 52;

// Exact for every safe integer: 32-bit bitwise operators and Math.log2 are not.
function bitLength(n: number): number {
  if (n < 2 ** 31) return 32 - Math.clz32(n);
  let bits = 31;
  for (let x = Math.floor(n / 2 ** 31); x >= 1; x = Math.floor(x / 2)) bits++;
  return bits;
}
const allOnes = (n: number) => n > 0 && 2 ** bitLength(n) - 1 === n;

/** Height of the node at index i (0 for leaves), by jumping left until the position is all ones. */
export function heightIndex(i: number): number {
  if (!Number.isSafeInteger(i) || i < 0 || i > MAX_MMR_INDEX)
    throw new RangeError(`MMR index ${i} is out of range`);
  let pos = i + 1;
  while (!allOnes(pos)) pos -= 2 ** (bitLength(pos) - 1) - 1;
  return bitLength(pos) - 1;
}

/** Heights of the peaks of an MMR of `mmrSize` nodes (highest first), or undefined for an incomplete size. */
function peakHeights(mmrSize: number): number[] | undefined {
  if (!Number.isSafeInteger(mmrSize) || mmrSize < 0) return undefined;
  const heights: number[] = [];
  let rest = mmrSize;
  while (rest > 0) {
    // The largest perfect tree that fits: 2^(h+1) − 1 ≤ rest.
    const height = bitLength(rest + 1) - 2;
    if (heights.length && (heights.at(-1) as number) <= height) return undefined;
    heights.push(height);
    rest -= 2 ** (height + 1) - 1;
  }
  return heights;
}

/** True for a complete MMR size (no two peaks of equal height). */
export function isValidMmrSize(n: number): boolean {
  return peakHeights(n) !== undefined;
}

/** Indices of the peaks of a complete MMR, left to right (highest first). */
export function peakIndices(mmrSize: number): number[] {
  const heights = peakHeights(mmrSize);
  if (!heights) throw new RangeError(`${mmrSize} is not a complete MMR size`);
  const out: number[] = [];
  let offset = 0;
  for (const h of heights) {
    offset += 2 ** (h + 1) - 1;
    out.push(offset - 1);
  }
  return out;
}

/** Leaves in a complete MMR. */
export function leafCount(mmrSize: number): number {
  const heights = peakHeights(mmrSize);
  if (!heights) throw new RangeError(`${mmrSize} is not a complete MMR size`);
  return heights.reduce((n, h) => n + 2 ** h, 0);
}

/** MMR index of leaf number e: 2e − popcount(e). */
export function mmrIndexOfLeaf(e: number): number {
  let ones = 0;
  for (let x = e; x > 0; x = Math.floor(x / 2)) ones += x % 2;
  return 2 * e - ones;
}

/** Leaf number of a leaf's MMR index (the inverse of mmrIndexOfLeaf). */
export function leafIndexOfMmrIndex(i: number): number {
  if (heightIndex(i) !== 0) throw new RangeError(`node ${i} is not a leaf`);
  return leafCount(firstMmrSize(i)) - 1;
}

/** The smallest complete MMR size that contains node i. */
function firstMmrSize(i: number): number {
  let size = i + 1;
  while (!isValidMmrSize(size)) size++;
  return size;
}

/**
 * A record's place in the log in words. Two numbers name it: its MMR position (what MMR receipts
 * and `merklelog_entry.commit.index` carry) and its log entry, the leaf index that checkpoints,
 * tiles and tlog-proofs count. Each is named, so one is never read as the other.
 */
export function entryWords(mmrIndex: number): string {
  if (heightIndex(mmrIndex) !== 0) return `MMR position ${mmrIndex} (not a leaf)`;
  return `log entry ${leafIndexOfMmrIndex(mmrIndex)} (MMR position ${mmrIndex})`;
}
