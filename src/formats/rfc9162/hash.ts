import { sameBytes } from "../crypto/bytes.js";
import { type Sha256, sha256 } from "../crypto/sha256.js";

/** A 32-byte SHA-256 value of the tree. */
export type Hash = Uint8Array;

const LEAF = new Uint8Array([0]);
const NODE = new Uint8Array([1]);

/**
 * RFC 9162 §2.1.1: a leaf is SHA-256(0x00 ‖ data), domain-separated from interior nodes. The
 * service appends with node:crypto's SHA-256 (`hash`); verifiers take the portable default.
 */
export function leafHash(data: Uint8Array, hash: Sha256 = sha256): Hash {
  return hash(LEAF, data);
}

/** RFC 9162 §2.1.1: an interior node is SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Hash, right: Hash, hash: Sha256 = sha256): Hash {
  return hash(NODE, left, right);
}

export const sameHash: (a: Hash, b: Hash) => boolean = sameBytes;
