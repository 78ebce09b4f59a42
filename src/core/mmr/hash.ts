import { createHash } from "node:crypto";

/** A 32-byte SHA-256 node value. */
export type Hash = Uint8Array;

/** Reads the node at an MMR index (the store preloads what an operation needs). */
export type NodeGetter = (i: number) => Hash;

/** Interior node value: SHA-256(uint64_be(pos) ‖ left ‖ right), pos = index + 1 (position committing). */
export function hashPosPair(pos: number, left: Hash, right: Hash): Hash {
  const p = Buffer.alloc(8);
  p.writeBigUInt64BE(BigInt(pos));
  return new Uint8Array(createHash("sha256").update(p).update(left).update(right).digest());
}

/** Byte equality of two hashes. */
export function sameHash(a: Hash, b: Hash): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}
