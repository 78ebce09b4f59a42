import { toBase64 } from "../../formats/crypto/bytes.js";
import { sameHash } from "../../formats/rfc9162/hash.js";
import { verifyConsistency } from "../../formats/rfc9162/verify.js";
import { type Checkpoint, parseCheckpoint } from "../../formats/tlog/checkpoint.js";
import {
  NoteError,
  type NoteVerifier,
  fromBase64 as noteBase64,
  verifyNote,
} from "../../formats/tlog/note.js";
import { EMPTY_ROOT as TLOG_EMPTY_ROOT } from "../../formats/tlog/tree.js";

type Hash = Uint8Array;

/**
 * C2SP tlog-witness add-checkpoint: the request body, and what a witness answers to it. The
 * service writes it to its witnesses; the witness server (src/witness) reads and judges it. A
 * verifier of the log never sees one: it checks the cosignatures the witnesses answered.
 */
export interface AddCheckpoint {
  oldSize: number;
  proof: Hash[];
  /** The signed checkpoint note. */
  note: string;
}

const MAX_PROOF_LINES = 63;

export function formatAddCheckpoint(r: AddCheckpoint): string {
  return `old ${r.oldSize}\n${r.proof.map((h) => `${toBase64(h)}\n`).join("")}\n${r.note}`;
}

export function parseAddCheckpoint(body: string): AddCheckpoint {
  const end = body.indexOf("\n\n");
  if (end < 0) throw new NoteError("the request has no empty line before its checkpoint");
  const [old, ...proofLines] = body.slice(0, end).split("\n");
  const m = /^old (0|[1-9][0-9]*)$/.exec(old ?? "");
  if (!m || !Number.isSafeInteger(Number(m[1]))) throw new NoteError("the first line must be `old <size>`");
  if (proofLines.length > MAX_PROOF_LINES) throw new NoteError(`more than ${MAX_PROOF_LINES} proof lines`);
  const proof = proofLines.map((l) => {
    const h = noteBase64(l);
    if (h.length !== 32) throw new NoteError("a proof line is not a SHA-256 hash");
    return h;
  });
  return { oldSize: Number(m[1]), proof, note: body.slice(end + 2) };
}

/** What a witness last cosigned for an origin. */
export interface WitnessedState {
  size: number;
  root: Hash;
}

export type AddCheckpointVerdict =
  | { status: 200; checkpoint: Checkpoint; text: string }
  | { status: 400 | 403 | 404 | 422; message: string }
  | { status: 409; size: number };

/**
 * The witness's checks, in the spec's order: a well-formed request (400), a known origin (404), a
 * signature by the log's key and none failing (403), old size within the checkpoint (400), old
 * size equal to what it last cosigned (409 with that size), the empty tree's root at size 0, an
 * empty proof from 0, a verifying proof, equal roots at equal sizes (422).
 */
export function judgeAddCheckpoint(
  body: string,
  logKeys: (origin: string) => NoteVerifier[] | undefined,
  latest: (origin: string) => WitnessedState | undefined,
): AddCheckpointVerdict {
  let req: AddCheckpoint;
  let checkpoint: Checkpoint;
  let text: string;
  try {
    req = parseAddCheckpoint(body);
    text = req.note.slice(0, Math.max(0, req.note.lastIndexOf("\n\n") + 1));
    checkpoint = parseCheckpoint(text);
  } catch (err) {
    return { status: 400, message: (err as Error).message };
  }
  const keys = logKeys(checkpoint.origin);
  if (!keys) return { status: 404, message: `unknown log origin ${checkpoint.origin}` };
  try {
    verifyNote(req.note, keys);
  } catch (err) {
    return { status: 403, message: (err as Error).message };
  }
  if (req.oldSize > checkpoint.size)
    return { status: 400, message: "old size exceeds the checkpoint's size" };
  const last = latest(checkpoint.origin);
  if (req.oldSize !== (last?.size ?? 0)) return { status: 409, size: last?.size ?? 0 };
  if (checkpoint.size === 0 && !sameHash(checkpoint.root, TLOG_EMPTY_ROOT))
    return { status: 422, message: "a checkpoint of size 0 must carry the empty tree's root" };
  if (req.oldSize === 0) {
    if (req.proof.length > 0) return { status: 422, message: "a proof from size 0 must be empty" };
  } else if (
    !verifyConsistency(
      req.oldSize,
      checkpoint.size,
      (last as WitnessedState).root,
      checkpoint.root,
      req.proof,
    )
  )
    return {
      status: 422,
      message:
        req.oldSize === checkpoint.size
          ? "a checkpoint of the size last cosigned has another root"
          : "the consistency proof does not verify",
    };
  return { status: 200, checkpoint, text };
}
