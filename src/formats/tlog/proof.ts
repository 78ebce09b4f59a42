import { fromBase64, NoteError } from "./note.js";

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
