// vindex/v1 written straight from its specification, for the tests to hold the trie to: a
// recursive definition over a list of leaves, nothing cached, hashed with node:crypto, and none
// of the library's code (only its proof type, to compare proofs whole).
import { createHash } from "node:crypto";
import type { VindexProof } from "../../../../src/formats/vindex/index.js";

export interface Entry {
  readonly position: Uint8Array;
  readonly value: Uint8Array;
}

const ZERO = new Uint8Array(32);

const sha = (...parts: Uint8Array[]): Uint8Array => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

export const naiveLeaf = (e: Entry): Uint8Array => sha(Uint8Array.of(0), e.position, e.value);
export const naiveNode = (l: Uint8Array, r: Uint8Array): Uint8Array => sha(Uint8Array.of(1), l, r);
const naiveBit = (p: Uint8Array, depth: number): number =>
  ((p[Math.floor(depth / 8)] as number) >> (7 - (depth % 8))) & 1;

/** The subtree at `depth` holding `entries` (which share the bits before it). */
export function naiveRoot(entries: readonly Entry[], depth = 0): Uint8Array {
  if (entries.length === 0) return ZERO;
  if (entries.length === 1) return naiveLeaf(entries[0] as Entry);
  const left = entries.filter((e) => naiveBit(e.position, depth) === 0);
  const right = entries.filter((e) => naiveBit(e.position, depth) === 1);
  return naiveNode(naiveRoot(left, depth + 1), naiveRoot(right, depth + 1));
}

/** The proof of `position` as the specification defines it: siblings down to a subtree of ≤ 1 leaf. */
export function naiveProof(entries: readonly Entry[], position: Uint8Array): VindexProof {
  const siblings: Uint8Array[] = [];
  let here = entries;
  for (let depth = 0; here.length >= 2; depth++) {
    const mine = here.filter((e) => naiveBit(e.position, depth) === naiveBit(position, depth));
    const other = here.filter((e) => naiveBit(e.position, depth) !== naiveBit(position, depth));
    siblings.push(naiveRoot(other, depth + 1));
    here = mine;
  }
  const last = here[0];
  return {
    siblings,
    terminal:
      last === undefined
        ? { kind: "empty" }
        : { kind: "leaf", position: last.position, valueCommitment: last.value },
  };
}
