// The map from positions to value commitments as vindex/v1's sparse Merkle tree, held compressed:
// a leaf, or a branch that splits on the first bit where its leaves differ. The levels a branch
// skips are the internal nodes with an empty child the tree has above it (a lone leaf has none),
// so their hashes are folded, not stored. Subtree hashes are cached on the nodes; a `set` clears
// the cache along its path only, so a root after a batch of changes hashes the changed paths.
//
// Each node keeps its bytes in one buffer laid out as its hash's input followed by the hash: at
// 200,000 leaves, a typed array per position, value and hash made the garbage collector a third
// of a build's time, and the input laid out whole is hashed in place, its digest written beside it.
import { sha256Into } from "../crypto/sha256-short.js";
import { bitAt, check32, firstDifference, HASH_SIZE, MAX_DEPTH } from "./hash.js";
import type { VindexProof } from "./proof.js";

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

/**
 * Which trie may change a node in place: the one whose token it carries. A snapshot gives both
 * tries new tokens, so the nodes they share are copied before either changes one (copy on write).
 */
type Owner = object;

interface Leaf {
  readonly leaf: true;
  readonly bytes: Uint8Array;
  owner: Owner;
  hashed: boolean;
}

interface Branch {
  readonly leaf: false;
  /** The depth it splits on: its leaves share every bit before it. */
  readonly bit: number;
  /** A leaf's bytes under it, whose position gives the bits they share. */
  readonly key: Uint8Array;
  left: TrieNode;
  right: TrieNode;
  readonly bytes: Uint8Array;
  owner: Owner;
  hashed: boolean;
  /** The depth (≤ bit) its hash is held for at ABOVE, the skipped levels folded in; -1 for none. */
  aboveDepth: number;
}

type TrieNode = Leaf | Branch;

function newLeaf(bytes: Uint8Array, owner: Owner): Leaf {
  return { leaf: true, bytes, owner, hashed: false };
}

function newBranch(bit: number, key: Uint8Array, left: TrieNode, right: TrieNode, owner: Owner): Branch {
  const bytes = new Uint8Array(ABOVE + HASH_SIZE);
  bytes[0] = 0x01;
  return {
    leaf: false,
    bit,
    key,
    left,
    right,
    bytes,
    owner,
    hashed: false,
    aboveDepth: -1,
  };
}

function copy32(from: Uint8Array, at: number, to: Uint8Array, toAt: number): void {
  for (let i = 0; i < HASH_SIZE; i++) to[toAt + i] = from[at + i] as number;
}

function same32(a: Uint8Array, at: number, b: Uint8Array): boolean {
  for (let i = 0; i < HASH_SIZE; i++) if (a[at + i] !== b[i]) return false;
  return true;
}

/**
 * vindex/v1's trie: positions (32 bytes) to value commitments (32 bytes), insert or replace only,
 * as the index never forgets a position. Its nodes are hashed by the short-message SHA-256 in
 * place (`sha256-short.ts`), the fastest there is for them in Node and in browsers alike.
 */
export class VindexTrie {
  #root: TrieNode | undefined = undefined;
  #size = 0;
  #owner: Owner = {};
  /** Whether the `set` under way changed anything: the nodes above it keep their hashes if not. */
  #changed = false;
  /** Where a skipped level's node is hashed: 0x01 ‖ left ‖ right, one side empty, then its hash. */
  readonly #fold = new Uint8Array(INPUT + HASH_SIZE);
  /** The branches `#replaceInPlace` walked, kept between calls (a path is at most 256 deep). */
  readonly #path: Branch[] = [];

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
    if (this.#root === undefined) {
      this.#root = this.#leafOf(position, commitment);
      this.#size = 1;
      return;
    }
    if (this.#replaceInPlace(position, commitment)) return;
    this.#changed = false;
    this.#root = this.#insert(this.#root, position, commitment, 0);
  }

  /**
   * Replaces a held position's commitment when every node on its path is this trie's own: the
   * walk a later list entry takes, with nothing copied and no recursion. False for anything else.
   */
  #replaceInPlace(pos: Uint8Array, com: Uint8Array): boolean {
    const path = this.#path;
    let n = 0;
    let node = this.#root;
    while (node !== undefined && !node.leaf) {
      if (node.owner !== this.#owner) return false;
      path[n++] = node;
      node = bitAt(pos, node.bit) ? node.right : node.left;
    }
    // Following the bits reaches the one leaf that can hold the position; it holds it or none does.
    if (node === undefined || node.owner !== this.#owner) return false;
    if (firstDifference(node.bytes, pos, 0, POSITION) < MAX_DEPTH) return false;
    if (same32(node.bytes, COMMITMENT, com)) return true;
    node.bytes.set(com, COMMITMENT);
    node.hashed = false;
    for (let i = 0; i < n; i++) {
      const branch = path[i] as Branch;
      branch.hashed = false;
      branch.aboveDepth = -1;
    }
    return true;
  }

  /** The commitment filed under `position`, if any. */
  get(position: Uint8Array): Uint8Array | undefined {
    check32(position, "a position");
    let node = this.#root;
    while (node !== undefined && !node.leaf) node = bitAt(position, node.bit) ? node.right : node.left;
    if (node === undefined || firstDifference(node.bytes, position, 0, POSITION) < MAX_DEPTH)
      return undefined;
    return node.bytes.slice(COMMITMENT, COMMITMENT + HASH_SIZE);
  }

  /** The map's root: 32 zero bytes when it is empty. */
  root(): Uint8Array {
    const out = new Uint8Array(HASH_SIZE);
    if (this.#root !== undefined) this.#hashInto(this.#root, 0, out, 0);
    return out;
  }

  /**
   * The trie that has what this one has now, and goes its own way from here. Nothing is copied
   * until one of them changes a node they share.
   */
  clone(): VindexTrie {
    const copy = new VindexTrie();
    copy.#root = this.#root;
    copy.#size = this.#size;
    this.#owner = {};
    return copy;
  }

  /** The proof of `position`'s commitment, or of its absence, against `root()`. */
  prove(position: Uint8Array): VindexProof {
    check32(position, "a position");
    const siblings: Uint8Array[] = [];
    let node = this.#root;
    let depth = 0;
    while (node !== undefined && !node.leaf) {
      const differs = node.bit > depth ? firstDifference(node.key, position, depth, POSITION) : MAX_DEPTH;
      // The position leaves the branch's shared prefix: it is absent, beside the whole branch.
      const stop = differs < node.bit;
      for (let k = depth; k < (stop ? differs : node.bit); k++) siblings.push(new Uint8Array(HASH_SIZE));
      const sibling = new Uint8Array(HASH_SIZE);
      siblings.push(sibling);
      if (stop) {
        this.#foldInto(node, differs + 1, sibling, 0);
        return { siblings, terminal: { kind: "empty" } };
      }
      const right = bitAt(position, node.bit) === 1;
      this.#hashInto(right ? node.left : node.right, node.bit + 1, sibling, 0);
      depth = node.bit + 1;
      node = right ? node.right : node.left;
    }
    if (node === undefined) return { siblings, terminal: { kind: "empty" } };
    const leafPosition = node.bytes.slice(POSITION, COMMITMENT);
    const valueCommitment = node.bytes.slice(COMMITMENT, LEAF_HASH);
    return { siblings, terminal: { kind: "leaf", position: leafPosition, valueCommitment } };
  }

  #leafOf(position: Uint8Array, commitment: Uint8Array): Leaf {
    const bytes = new Uint8Array(LEAF_HASH + HASH_SIZE);
    bytes.set(position, POSITION);
    bytes.set(commitment, COMMITMENT);
    return newLeaf(bytes, this.#owner);
  }

  /** `node` with `pos` filed under it; `depth` is where `node` hangs, so they share the bits before it. */
  #insert(node: TrieNode, pos: Uint8Array, com: Uint8Array, depth: number): TrieNode {
    if (node.leaf) {
      const differs = firstDifference(node.bytes, pos, depth, POSITION);
      if (differs < MAX_DEPTH) return this.#split(node, node.bytes, pos, com, differs);
      if (same32(node.bytes, COMMITMENT, com)) return node;
      const leaf = this.#own(node) as Leaf;
      leaf.bytes.set(com, COMMITMENT);
      leaf.hashed = false;
      this.#changed = true;
      return leaf;
    }
    // Only a branch that skips levels can part from `pos` above its bit (reading its key is a cache miss).
    const differs = node.bit > depth ? firstDifference(node.key, pos, depth, POSITION) : MAX_DEPTH;
    if (differs < node.bit) return this.#split(node, node.key, pos, com, differs);
    const right = bitAt(pos, node.bit) === 1;
    const child = this.#insert(right ? node.right : node.left, pos, com, node.bit + 1);
    if (!this.#changed) return node;
    const branch = this.#own(node) as Branch;
    if (right) branch.right = child;
    else branch.left = child;
    branch.hashed = false;
    branch.aboveDepth = -1;
    return branch;
  }

  /** A branch at `bit` of `node` (whose leaves have `key`'s bits before it) and a new leaf. */
  #split(node: TrieNode, key: Uint8Array, pos: Uint8Array, com: Uint8Array, bit: number): Branch {
    const leaf = this.#leafOf(pos, com);
    this.#size++;
    this.#changed = true;
    return bitAt(pos, bit)
      ? newBranch(bit, key, node, leaf, this.#owner)
      : newBranch(bit, key, leaf, node, this.#owner);
  }

  /** `node` itself if this trie may change it, else a copy it may. */
  #own(node: TrieNode): TrieNode {
    if (node.owner === this.#owner) return node;
    return node.leaf
      ? newLeaf(node.bytes.slice(), this.#owner)
      : newBranch(node.bit, node.key, node.left, node.right, this.#owner);
  }

  /** Writes the hash of the subtree at `depth` holding what `node` holds to `to` at `at`, cached. */
  #hashInto(node: TrieNode, depth: number, to: Uint8Array, at: number): void {
    if (node.leaf) {
      if (!node.hashed) {
        sha256Into(node.bytes, node.bytes, LEAF_HASH, INPUT);
        node.hashed = true;
      }
      copy32(node.bytes, LEAF_HASH, to, at);
      return;
    }
    this.#branchHash(node);
    if (depth === node.bit) {
      copy32(node.bytes, BRANCH_HASH, to, at);
      return;
    }
    if (node.aboveDepth !== depth) {
      this.#foldInto(node, depth, node.bytes, ABOVE);
      node.aboveDepth = depth;
    }
    copy32(node.bytes, ABOVE, to, at);
  }

  /** Computes a branch's hash at its own depth, unless it holds it. */
  #branchHash(node: Branch): void {
    if (node.hashed) return;
    this.#hashInto(node.left, node.bit + 1, node.bytes, LEFT);
    this.#hashInto(node.right, node.bit + 1, node.bytes, RIGHT);
    sha256Into(node.bytes, node.bytes, BRANCH_HASH, INPUT);
    node.hashed = true;
  }

  /** A branch's hash seen from `depth` (≤ its bit), to `to` at `at`: each level skipped has an empty child. */
  #foldInto(node: Branch, depth: number, to: Uint8Array, at: number): void {
    this.#branchHash(node);
    // Each level's hash goes to the end of the fold buffer, read from there by the level above.
    const fold = this.#fold;
    copy32(node.bytes, BRANCH_HASH, fold, INPUT);
    for (let k = node.bit - 1; k >= depth; k--) {
      const right = bitAt(node.key, k, POSITION) === 1;
      copy32(fold, INPUT, fold, right ? RIGHT : LEFT);
      fold.fill(0, right ? LEFT : RIGHT, right ? RIGHT : INPUT);
      sha256Into(fold, fold, INPUT, INPUT);
    }
    copy32(fold, INPUT, to, at);
  }
}
