// A vindex/v1 proof: the siblings on a position's path, from the root down, and what the path ends
// at (a leaf, or an empty subtree). A verifier folds them up to the root. One root has one proof
// shape per position: a proof the tree would have collapsed is refused, not merely unused.
import { sameBytes } from "../crypto/bytes.js";
import { type Sha256, sha256 } from "../crypto/sha256.js";
import {
  bitAt,
  EMPTY_HASH,
  firstDifference,
  HASH_SIZE,
  isEmptyHash,
  leafHash,
  MAX_DEPTH,
  nodeHash,
} from "./hash.js";

/** Where a position's path ends: a leaf (its own when present, another's when absent), or nothing. */
type VindexTerminal =
  | { readonly kind: "leaf"; readonly position: Uint8Array; readonly valueCommitment: Uint8Array }
  | { readonly kind: "empty" };

/** A position's proof: `siblings[d]` is the hash beside its path at depth d, 32 zero bytes when empty. */
export interface VindexProof {
  readonly siblings: readonly Uint8Array[];
  readonly terminal: VindexTerminal;
}

/** A proof's verdict; `reason` is for people. */
type VindexVerification = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const is32 = (b: unknown): b is Uint8Array => b instanceof Uint8Array && b.length === HASH_SIZE;

/** Why the proof's parts cannot be a vindex/v1 proof at all, if they cannot. */
function shapeFault(root: Uint8Array, position: Uint8Array, proof: VindexProof): string | undefined {
  if (!is32(root)) return "the root is not 32 bytes";
  if (!is32(position)) return "the position is not 32 bytes";
  if (!Array.isArray(proof.siblings)) return "the proof has no sibling list";
  if (proof.siblings.length > MAX_DEPTH) return `a path has at most ${MAX_DEPTH} siblings`;
  if (!proof.siblings.every(is32)) return "a sibling is not 32 bytes";
  const t = proof.terminal;
  if (t?.kind === "leaf") {
    if (!is32(t.position) || !is32(t.valueCommitment))
      return "the terminal leaf's position or value is not 32 bytes";
  } else if (t?.kind !== "empty") return "the terminal is neither a leaf nor empty";
  const last = proof.siblings[proof.siblings.length - 1];
  // A node whose other child is empty holds only what the path ends at: ≤ 1 leaf, which the tree
  // keeps as the leaf itself (or nothing), never as a node. Such a proof has a canonical shorter form.
  if (last !== undefined && isEmptyHash(last))
    return "the deepest sibling is empty: the tree would have collapsed it";
  return undefined;
}

/** Why the terminal does not say what is claimed of `position`, if it does not. */
function claimFault(
  position: Uint8Array,
  proof: VindexProof,
  expected: Uint8Array | null,
): string | undefined {
  const t = proof.terminal;
  if (expected !== null) {
    if (!is32(expected)) return "the expected value commitment is not 32 bytes";
    if (t.kind !== "leaf") return "the proof shows the position absent";
    if (!sameBytes(t.position, position))
      return "the proof ends at another position's leaf: the position is absent";
    if (!sameBytes(t.valueCommitment, expected)) return "the position holds another value commitment";
    return undefined;
  }
  if (t.kind === "empty") return undefined;
  if (sameBytes(t.position, position)) return "the proof shows the position present";
  // The leaf's path is the position's down to where the proof ends, or it is not on this path.
  if (firstDifference(t.position, position) < proof.siblings.length)
    return "the terminal leaf is not on the position's path";
  return undefined;
}

/** The root a proof folds to from its terminal, along `position`'s bits. */
function foldedRoot(position: Uint8Array, proof: VindexProof, hash: Sha256 = sha256): Uint8Array {
  const t = proof.terminal;
  let h = t.kind === "leaf" ? leafHash(t.position, t.valueCommitment, hash) : EMPTY_HASH;
  for (let depth = proof.siblings.length - 1; depth >= 0; depth--) {
    const sibling = proof.siblings[depth] as Uint8Array;
    h = bitAt(position, depth) ? nodeHash(sibling, h, hash) : nodeHash(h, sibling, hash);
  }
  return h === EMPTY_HASH ? EMPTY_HASH.slice() : h;
}

/**
 * Whether `proof` shows, against `root`, that `position` holds `expected` (a value commitment),
 * or (`expected` null) that it holds nothing.
 */
export function verifyVindexProof(
  root: Uint8Array,
  position: Uint8Array,
  proof: VindexProof,
  expected: Uint8Array | null,
  hash: Sha256 = sha256,
): VindexVerification {
  const fault = shapeFault(root, position, proof) ?? claimFault(position, proof, expected);
  if (fault !== undefined) return { ok: false, reason: fault };
  if (!sameBytes(foldedRoot(position, proof, hash), root))
    return { ok: false, reason: "the proof does not lead to the root" };
  return { ok: true };
}
