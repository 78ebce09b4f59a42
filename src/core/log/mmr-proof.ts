// Making an MMR consistency proof is the service's work (seals, the proofs API); a verifier only
// checks one (the room's mmr/consistency.ts), so this lives outside the audit room.

import type { NodeGetter } from "../../formats/mmr/hash.js";
import { isValidMmrSize, peakIndices } from "../../formats/mmr/indices.js";
import { inclusionProofIndices } from "../../formats/mmr/proof.js";

/** One inclusion path per peak of the old MMR, into the new one (the draft's consistency proof). */
export function consistencyProofIndices(fromSize: number, toSize: number): number[][] {
  if (!isValidMmrSize(fromSize) || !isValidMmrSize(toSize) || fromSize > toSize)
    throw new RangeError(`no consistency proof from ${fromSize} to ${toSize}`);
  return peakIndices(fromSize).map((p) => inclusionProofIndices(toSize, p));
}

/** Sibling values of the consistency proof. */
export function consistencyProof(fromSize: number, toSize: number, getNode: NodeGetter): Uint8Array[][] {
  return consistencyProofIndices(fromSize, toSize).map((path) => path.map(getNode));
}
