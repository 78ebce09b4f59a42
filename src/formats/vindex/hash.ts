// vindex/v1's node hashes. Each input starts with its own tag byte (0x00 leaf, 0x01 internal node,
// 0x02 value commitment, 0x03 value chain link), so no preimage of one kind is one of another.
import { type Sha256, sha256 } from "../crypto/sha256.js";
import { VindexError } from "./error.js";

/** Bytes of a position, a commitment and every node hash. */
export const HASH_SIZE = 32;

/** Positions have 256 bits, so no path is deeper. */
export const MAX_DEPTH = 256;

/** The hash of an empty subtree, and the root of the empty map: 32 zero bytes (no preimage is known). */
export const EMPTY_HASH: Uint8Array = new Uint8Array(HASH_SIZE);

const LEAF_TAG = Uint8Array.of(0x00);
const NODE_TAG = Uint8Array.of(0x01);

/** A leaf: SHA-256(0x00 ‖ position ‖ valueCommitment). */
export function leafHash(position: Uint8Array, commitment: Uint8Array, hash: Sha256 = sha256): Uint8Array {
  return hash(LEAF_TAG, position, commitment);
}

/** An internal node: SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Uint8Array, right: Uint8Array, hash: Sha256 = sha256): Uint8Array {
  return hash(NODE_TAG, left, right);
}

/**
 * Bit `depth` of a position, bit 0 being the most significant bit of byte 0 (0 goes left, 1 right).
 * The position starts at `offset` of `bytes` (the trie keeps it inside a leaf's buffer).
 */
export function bitAt(bytes: Uint8Array, depth: number, offset = 0): number {
  return ((bytes[offset + (depth >>> 3)] as number) >>> (7 - (depth & 7))) & 1;
}

/**
 * The first bit, from `from` on, where position `a` (at `aOffset` of its bytes) and position `b`
 * differ; MAX_DEPTH when they are equal there.
 */
export function firstDifference(a: Uint8Array, b: Uint8Array, from = 0, aOffset = 0): number {
  if (from >= MAX_DEPTH) return MAX_DEPTH;
  let byte = from >>> 3;
  // The bits of the first byte before `from` are masked off: only those from `from` on count.
  let x = ((a[aOffset + byte] as number) ^ (b[byte] as number)) & (0xff >>> (from & 7));
  for (;;) {
    if (x !== 0) return byte * 8 + Math.clz32(x) - 24;
    if (++byte === HASH_SIZE) return MAX_DEPTH;
    x = (a[aOffset + byte] as number) ^ (b[byte] as number);
  }
}

/** Whether a hash is the empty subtree's. */
export function isEmptyHash(h: Uint8Array): boolean {
  for (let i = 0; i < h.length; i++) if (h[i] !== 0) return false;
  return h.length === HASH_SIZE;
}

/** Refuses a position, salt or commitment that is not 32 bytes. */
export function check32(bytes: Uint8Array, what: string): void {
  if (!(bytes instanceof Uint8Array) || bytes.length !== HASH_SIZE)
    throw new VindexError(`${what} must be ${HASH_SIZE} bytes`);
}
