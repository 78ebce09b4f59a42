import { sameHash } from "../rfc9162/hash.js";
import { rootFromInclusionProof } from "../rfc9162/verify.js";
import { type CheckpointVerdict, type LogTrust, verifyCheckpoint } from "./log-check.js";
import { fromBase64, NoteError } from "./note.js";
import { leafHash } from "./tree.js";

/** The first line of a C2SP tlog-proof (c2sp.org/tlog-proof@v1). */
export const TLOG_PROOF_HEADER = "c2sp.org/tlog-proof@v1";

/**
 * An offline proof that an entry is in a log (c2sp.org/tlog-proof): optional unauthenticated
 * extra data, the entry's zero-based index, its RFC 9162 inclusion path (leaf's sibling first)
 * in the checkpointed tree, and the checkpoint note verbatim, cosignatures included.
 */
export interface TlogProof {
  extra?: Uint8Array | undefined;
  index: number;
  path: Uint8Array[];
  checkpoint: string;
}

/**
 * Reads a tlog-proof (refusing anything the format does not allow, by name).
 *
 * @example
 * ```ts
 * const proof = parseTlogProof(text); // throws on anything c2sp.org/tlog-proof does not allow
 * console.log(proof.index);
 * ```
 */
export function parseTlogProof(text: string): TlogProof {
  const lines = text.split("\n");
  if (lines[0] !== TLOG_PROOF_HEADER) throw new NoteError(`a tlog proof starts with ${TLOG_PROOF_HEADER}`);
  let at = 1;
  let extra: Uint8Array | undefined;
  if (lines[at]?.startsWith("extra ")) {
    extra = fromBase64((lines[at] as string).slice("extra ".length));
    at++;
  }
  const index = /^index (0|[1-9][0-9]*)$/.exec(lines[at] ?? "")?.[1];
  if (index === undefined || !Number.isSafeInteger(Number(index)))
    throw new NoteError("the proof's index line must be `index <decimal without leading zeroes>`");
  at++;
  const path: Uint8Array[] = [];
  for (; at < lines.length && lines[at] !== ""; at++) {
    const h = fromBase64(lines[at] as string);
    if (h.length !== 32) throw new NoteError(`inclusion proof line ${path.length + 1} is not a SHA-256 hash`);
    path.push(h);
  }
  if (at >= lines.length) throw new NoteError("the proof has no empty line before its checkpoint");
  const checkpoint = lines.slice(at + 1).join("\n");
  if (checkpoint === "") throw new NoteError("the proof carries no checkpoint");
  return { extra, index: Number(index), path, checkpoint };
}

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
    reason: `the inclusion proof does not lead from the entry's leaf at ${proof.index} to the checkpoint's root (size ${size})`,
  };
}
