// The map from positions to value commitments as vindex/v1's sparse Merkle tree, held compressed:
// a leaf, or a branch that splits on the first bit where its leaves differ. The levels a branch
// skips are the internal nodes with an empty child the tree has above it (a lone leaf has none),
// so their hashes are folded, not stored. Hashes are cached on the nodes; a `set` marks the side
// it came down on along its path, so a root after a batch of changes hashes the changed paths
// and reads no sibling: each branch keeps both children's hashes as its own hash's input.
//
// The nodes lie in arrays (`trie-nodes.ts`), each node's bytes laid out as its hash's input
// followed by the hash, so the input is hashed in place and its digest written beside it.
import { sha256Range } from "../crypto/sha256-short.js";
import { bitAt, check32, firstDifference, HASH_SIZE, MAX_DEPTH } from "./hash.js";
import type { VindexProof } from "./proof.js";
import { copy32, grown, int32s, Slots, same32, uint8s } from "./trie-nodes.js";

// A leaf's bytes: 0x00 ‖ position ‖ commitment (its hash's input) ‖ its hash.
const POSITION = 1;
const COMMITMENT = POSITION + HASH_SIZE;
const LEAF_HASH = COMMITMENT + HASH_SIZE;
// A branch's bytes: 0x01 ‖ left ‖ right (its hash's input) ‖ its hash ‖ its hash above it.
const LEFT = 1;
const RIGHT = LEFT + HASH_SIZE;
const BRANCH_HASH = RIGHT + HASH_SIZE;
const ABOVE = BRANCH_HASH + HASH_SIZE;
/** Both inputs are a tag and two 32-byte parts. */
const INPUT = 1 + 2 * HASH_SIZE;

// A branch's numbers, eight Int32s from 8 × its index: the bit it splits on (its leaves share
// every bit before it), its children, a leaf under it (whose position gives those shared bits),
// the depth (≤ its bit) its hash is held for at ABOVE (-1 for none) and its flags.
const STRIDE = 8;
const BIT = 0;
const LEFT_CHILD = 1;
const RIGHT_CHILD = 2;
const KEY = 3;
const ABOVE_DEPTH = 4;
const FLAGS = 5;
const HASHED = 1;
/** The side's hash in the branch's bytes is stale: that child changed or is new. */
const LEFT_STALE = 2;
const RIGHT_STALE = 4;

/** A node: a branch's index (≥ 0), or a leaf's index `l` as `~l` (< 0). */
type NodeRef = number;

/**
 * vindex/v1's trie: positions (32 bytes) to value commitments (32 bytes), insert or replace only,
 * as the index never forgets a position. Its nodes are hashed by the short-message SHA-256 in
 * place (`sha256-short.ts`), the fastest there is for them in Node and in browsers alike. A proof
 * or a root reads the trie as it is: a caller that must answer as of a revision takes what it
 * needs before anything changes it.
 */
export class VindexTrie {
  #root: NodeRef = 0;
  #size = 0;
  readonly #leaves = new Slots(LEAF_HASH + HASH_SIZE);
  #leafHashed = new Uint8Array(1024);
  readonly #branches = new Slots(ABOVE + HASH_SIZE);
  #meta = new Int32Array(1024 * STRIDE);
  /** Where a skipped level's node is hashed: 0x01 ‖ left ‖ right, one side empty, then its hash. */
  readonly #fold = new Uint8Array(INPUT + HASH_SIZE);
  /** The branches a `set` walked, kept between calls (a path is at most 256 deep). */
  readonly #path = new Int32Array(MAX_DEPTH + 1);

  constructor() {
    this.#fold[0] = 0x01;
  }

  /** How many positions the map holds. */
  get size(): number {
    return this.#size;
  }

  /** Files `commitment` under `position`, in place of what was there. */
  set(position: Uint8Array, commitment: Uint8Array): void {
    check32(position, "a position");
    check32(commitment, "a value commitment");
    if (this.#size === 0) {
      this.#root = ~this.#newLeaf(position, commitment);
      this.#size = 1;
      return;
    }
    // Down by the position's bits to the one leaf that can hold it, keeping the path.
    const path = this.#path;
    let meta = this.#meta;
    let n = 0;
    let node = this.#root;
    while (node >= 0) {
      path[n++] = node;
      const m = node * STRIDE;
      node = meta[m + (bitAt(position, meta[m + BIT] as number) ? RIGHT_CHILD : LEFT_CHILD)] as number;
    }
    const leaf = ~node;
    const bytes = this.#leaves.chunk(leaf);
    const at = this.#leaves.offset(leaf);
    const differs = firstDifference(bytes, position, 0, at + POSITION);
    if (differs === MAX_DEPTH) {
      if (same32(bytes, at + COMMITMENT, commitment)) return;
      bytes.set(commitment, at + COMMITMENT);
      this.#leafHashed[leaf] = 0;
      this.#stale(position, n);
      return;
    }
    // The position agrees with that leaf before `differs`, so it took each branch above that bit
    // the leaf's way: the new branch goes below the last of them, above the first that splits lower.
    let k = 0;
    while (k < n && (meta[(path[k] as number) * STRIDE + BIT] as number) < differs) k++;
    const other = k < n ? (path[k] as number) : node;
    const added = this.#newLeaf(position, commitment);
    const right = bitAt(position, differs) === 1;
    const branch = this.#newBranch(differs, added, right ? other : ~added, right ? ~added : other);
    meta = this.#meta;
    if (k === 0) this.#root = branch;
    else {
      const m = (path[k - 1] as number) * STRIDE;
      meta[m + (bitAt(position, meta[m + BIT] as number) ? RIGHT_CHILD : LEFT_CHILD)] = branch;
    }
    this.#size++;
    this.#stale(position, k);
  }

  /** The first `n` branches of the path: the side `position` went down is stale, so is their hash. */
  #stale(position: Uint8Array, n: number): void {
    const meta = this.#meta;
    const path = this.#path;
    for (let i = 0; i < n; i++) {
      const m = (path[i] as number) * STRIDE;
      const side = bitAt(position, meta[m + BIT] as number) ? RIGHT_STALE : LEFT_STALE;
      meta[m + FLAGS] = ((meta[m + FLAGS] as number) & ~HASHED) | side;
      meta[m + ABOVE_DEPTH] = -1;
    }
  }

  /** The commitment filed under `position`, if any. */
  get(position: Uint8Array): Uint8Array | undefined {
    check32(position, "a position");
    if (this.#size === 0) return undefined;
    const leaf = ~this.#leafFor(position);
    const bytes = this.#leaves.chunk(leaf);
    const at = this.#leaves.offset(leaf);
    if (firstDifference(bytes, position, 0, at + POSITION) < MAX_DEPTH) return undefined;
    return bytes.slice(at + COMMITMENT, at + COMMITMENT + HASH_SIZE);
  }

  /** The leaf the position's bits lead to. */
  #leafFor(position: Uint8Array): NodeRef {
    const meta = this.#meta;
    let node = this.#root;
    while (node >= 0) {
      const m = node * STRIDE;
      node = meta[m + (bitAt(position, meta[m + BIT] as number) ? RIGHT_CHILD : LEFT_CHILD)] as number;
    }
    return node;
  }

  /** The map's root: 32 zero bytes when it is empty. */
  root(): Uint8Array {
    const out = new Uint8Array(HASH_SIZE);
    if (this.#size > 0) this.#hashInto(this.#root, 0, out, 0);
    return out;
  }

  /** The proof of `position`'s commitment, or of its absence, against `root()`. */
  prove(position: Uint8Array): VindexProof {
    check32(position, "a position");
    const siblings: Uint8Array[] = [];
    if (this.#size === 0) return { siblings, terminal: { kind: "empty" } };
    let node = this.#root;
    let depth = 0;
    while (node >= 0) {
      const m = node * STRIDE;
      const bit = this.#meta[m + BIT] as number;
      const differs = bit > depth ? this.#keyDifference(node, position, depth) : MAX_DEPTH;
      // The position leaves the branch's shared prefix: it is absent, beside the whole branch.
      const stop = differs < bit;
      for (let k = depth; k < (stop ? differs : bit); k++) siblings.push(new Uint8Array(HASH_SIZE));
      const sibling = new Uint8Array(HASH_SIZE);
      siblings.push(sibling);
      if (stop) {
        this.#foldInto(node, differs + 1, sibling, 0);
        return { siblings, terminal: { kind: "empty" } };
      }
      const right = bitAt(position, bit) === 1;
      const left = this.#meta[m + LEFT_CHILD] as number;
      const rightChild = this.#meta[m + RIGHT_CHILD] as number;
      this.#hashInto(right ? left : rightChild, bit + 1, sibling, 0);
      depth = bit + 1;
      node = right ? rightChild : left;
    }
    const bytes = this.#leaves.chunk(~node);
    const at = this.#leaves.offset(~node);
    const leafPosition = bytes.slice(at + POSITION, at + COMMITMENT);
    const valueCommitment = bytes.slice(at + COMMITMENT, at + LEAF_HASH);
    return { siblings, terminal: { kind: "leaf", position: leafPosition, valueCommitment } };
  }

  /** The first bit from `depth` on where `position` parts from the bits a branch's leaves share. */
  #keyDifference(branch: number, position: Uint8Array, depth: number): number {
    const key = this.#meta[branch * STRIDE + KEY] as number;
    return firstDifference(this.#leaves.chunk(key), position, depth, this.#leaves.offset(key) + POSITION);
  }

  #newLeaf(position: Uint8Array, commitment: Uint8Array): number {
    const leaf = this.#leaves.add();
    const bytes = this.#leaves.chunk(leaf);
    const at = this.#leaves.offset(leaf);
    bytes.set(position, at + POSITION);
    bytes.set(commitment, at + COMMITMENT);
    if (leaf >= this.#leafHashed.length) this.#leafHashed = grown(this.#leafHashed, leaf + 1, uint8s);
    return leaf;
  }

  /** A branch at `bit` over `left` and `right`, both sides to be hashed; `key` is a leaf under it. */
  #newBranch(bit: number, key: number, left: NodeRef, right: NodeRef): number {
    const branch = this.#branches.add();
    this.#branches.chunk(branch)[this.#branches.offset(branch)] = 0x01;
    if ((branch + 1) * STRIDE > this.#meta.length)
      this.#meta = grown(this.#meta, (branch + 1) * STRIDE, int32s);
    const meta = this.#meta;
    const m = branch * STRIDE;
    meta[m + BIT] = bit;
    meta[m + LEFT_CHILD] = left;
    meta[m + RIGHT_CHILD] = right;
    meta[m + KEY] = key;
    meta[m + ABOVE_DEPTH] = -1;
    meta[m + FLAGS] = LEFT_STALE | RIGHT_STALE;
    return branch;
  }

  /** Writes the hash of the subtree at `depth` holding what `node` holds to `to` at `at`, cached. */
  #hashInto(node: NodeRef, depth: number, to: Uint8Array, at: number): void {
    if (node < 0) {
      const leaf = ~node;
      const bytes = this.#leaves.chunk(leaf);
      const from = this.#leaves.offset(leaf);
      if (this.#leafHashed[leaf] === 0) {
        sha256Range(bytes, from, INPUT, bytes, from + LEAF_HASH);
        this.#leafHashed[leaf] = 1;
      }
      copy32(bytes, from + LEAF_HASH, to, at);
      return;
    }
    this.#branchHash(node);
    const bytes = this.#branches.chunk(node);
    const from = this.#branches.offset(node);
    const m = node * STRIDE;
    if (depth === this.#meta[m + BIT]) {
      copy32(bytes, from + BRANCH_HASH, to, at);
      return;
    }
    if (this.#meta[m + ABOVE_DEPTH] !== depth) {
      this.#foldInto(node, depth, bytes, from + ABOVE);
      this.#meta[m + ABOVE_DEPTH] = depth;
    }
    copy32(bytes, from + ABOVE, to, at);
  }

  /** Computes a branch's hash at its own depth, unless it holds it: its stale sides first. */
  #branchHash(branch: number): void {
    const meta = this.#meta;
    const m = branch * STRIDE;
    const flags = meta[m + FLAGS] as number;
    if (flags & HASHED) return;
    const bytes = this.#branches.chunk(branch);
    const at = this.#branches.offset(branch);
    const below = (meta[m + BIT] as number) + 1;
    if (flags & LEFT_STALE) this.#hashInto(meta[m + LEFT_CHILD] as number, below, bytes, at + LEFT);
    if (flags & RIGHT_STALE) this.#hashInto(meta[m + RIGHT_CHILD] as number, below, bytes, at + RIGHT);
    sha256Range(bytes, at, INPUT, bytes, at + BRANCH_HASH);
    meta[m + FLAGS] = HASHED;
  }

  /** A branch's hash seen from `depth` (≤ its bit), to `to` at `at`: each level skipped has an empty child. */
  #foldInto(branch: number, depth: number, to: Uint8Array, at: number): void {
    this.#branchHash(branch);
    const m = branch * STRIDE;
    const key = this.#meta[m + KEY] as number;
    const keyBytes = this.#leaves.chunk(key);
    const keyAt = this.#leaves.offset(key) + POSITION;
    // Each level's hash goes to the end of the fold buffer, read from there by the level above.
    const fold = this.#fold;
    copy32(this.#branches.chunk(branch), this.#branches.offset(branch) + BRANCH_HASH, fold, INPUT);
    for (let k = (this.#meta[m + BIT] as number) - 1; k >= depth; k--) {
      const right = bitAt(keyBytes, k, keyAt) === 1;
      copy32(fold, INPUT, fold, right ? RIGHT : LEFT);
      fold.fill(0, right ? LEFT : RIGHT, right ? RIGHT : INPUT);
      sha256Range(fold, 0, INPUT, fold, INPUT);
    }
    copy32(fold, INPUT, to, at);
  }
}
