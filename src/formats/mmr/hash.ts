import { sameBytes, u64be } from "../crypto/bytes.js";
import { type Sha256, sha256 } from "../crypto/sha256.js";

/** A 32-byte SHA-256 node value. */
export type Hash = Uint8Array;

/** Reads the node at an MMR index (the store preloads what an operation needs). */
export type NodeGetter = (i: number) => Hash;

/**
 * Interior node value: SHA-256(uint64_be(pos) ‖ left ‖ right), pos = index + 1 (position committing).
 * The service appends with node:crypto's SHA-256 (`hash`); verifiers take the portable default.
 */
export function hashPosPair(pos: number, left: Hash, right: Hash, hash: Sha256 = sha256): Hash {
  return hash(u64be(pos), left, right);
}

/** Byte equality of two hashes. */
export const sameHash: (a: Hash, b: Hash) => boolean = sameBytes;
