import { createHash } from "node:crypto";

/** A 32-byte SHA-256 value of the tree. */
export type Hash = Uint8Array;

const LEAF = new Uint8Array([0]);
const NODE = new Uint8Array([1]);

/** RFC 9162 §2.1.1: a leaf is SHA-256(0x00 ‖ data), domain-separated from interior nodes. */
export function leafHash(data: Uint8Array): Hash {
  return new Uint8Array(createHash("sha256").update(LEAF).update(data).digest());
}

/** RFC 9162 §2.1.1: an interior node is SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Hash, right: Hash): Hash {
  return new Uint8Array(createHash("sha256").update(NODE).update(left).update(right).digest());
}

export function sameHash(a: Hash, b: Hash): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}
