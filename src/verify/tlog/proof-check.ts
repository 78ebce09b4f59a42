/** Checking a tlog-proof (c2sp.org/tlog-proof): its checkpoint against the trust, its path to the root. */
import { sameHash } from "../../formats/rfc9162/hash.js";
import { rootFromInclusionProof } from "../../formats/rfc9162/verify.js";
import { parseTlogProof, type TlogProof } from "../../formats/tlog/proof.js";
import { leafHash } from "../../formats/tlog/tree.js";
import { type CheckpointVerdict, type LogTrust, verifyCheckpoint } from "./log-check.js";

export type TlogProofVerdict =
  | (Extract<CheckpointVerdict, { ok: true }> & { index: number; leafData: Uint8Array })
  | { ok: false; reason: string };

/**
 * Verifies a tlog-proof for an entry whose leaf data is one of `candidates` (the application's
 * step 1): the checkpoint signed by the log and cosigned by the quorum (steps 2-3), then the
 * inclusion path from SHA-256(0x00 ‖ data) at the index to the checkpoint's root (step 4).
 */
export function verifyTlogProof(text: string, candidates: Uint8Array[], trust: LogTrust): TlogProofVerdict {
  let proof: TlogProof;
  try {
    proof = parseTlogProof(text);
  } catch (err) {
    return { ok: false, reason: `not a tlog proof: ${(err as Error).message}` };
  }
  const cp = verifyCheckpoint(proof.checkpoint, trust);
  if (!cp.ok) return cp;
  const { size, root } = cp.checkpoint;
  if (proof.index >= size)
    return { ok: false, reason: `log entry ${proof.index} is beyond the checkpoint's ${size} entries` };
  for (const data of candidates) {
    const r = rootFromInclusionProof(proof.index, size, leafHash(data), proof.path);
    if (r && sameHash(r, root)) return { ...cp, index: proof.index, leafData: data };
  }
  return {
    ok: false,
    reason: `the inclusion proof does not lead from log entry ${proof.index} to the root of the checkpoint of ${size} entries`,
  };
}
