import { type Checkpoint, parseCheckpoint } from "../../formats/tlog/checkpoint.js";
import { cosignatureTime } from "../../formats/tlog/cosignature.js";
import {
  type CheckedSignature,
  checkSignatures,
  type NoteVerifier,
  parseNote,
} from "../../formats/tlog/note.js";
import { verifierFromVkey } from "../../formats/tlog/vkey-verifier.js";
import { quorumMet, type TrustPolicy } from "./policy.js";

/** A checkpoint judged against the caller's trust roots, with the key the evidence brought for it. */
export type CheckpointJudgement =
  | {
      ok: true;
      checkpoint: Checkpoint;
      /** Signed by a log key the caller pinned (or cosigned by a quorum of its witnesses). */
      pinned: boolean;
      /** Cosigned by a quorum of the caller's witnesses (false when it names none). */
      witnessed: boolean;
      /** The caller's witnesses (policy names) whose cosignatures verified. */
      cosigners: string[];
      /** The newest time (POSIX seconds) a cosignature of the caller's witnesses signed, if any. */
      cosignedAt?: number;
      /** Signature lines besides the log's own: cosignatures, checked or not. */
      lines: number;
      /** When the caller's roots are not met: why. */
      policy?: string;
    }
  | { ok: false; reason: string };

const PINNED_LOG = "the checkpoint is not signed by a log key you pinned";

/** The lines that verified under `verifiers`, or the reason to refuse the note (a known key's line that does not). */
function signedBy(
  note: string,
  verifiers: NoteVerifier[],
  whose: string,
): { ok: true; valid: CheckedSignature[] } | { ok: false; reason: string } {
  const { checked } = checkSignatures(note, verifiers);
  const bad = checked.find((c) => !c.valid);
  if (bad)
    return {
      ok: false,
      reason: `the checkpoint carries a signature line under ${whose} ${bad.signature.name} (key id ${bad.signature.keyId.toString(16).padStart(8, "0")}) that does not verify under that key`,
    };
  return { ok: true, valid: checked };
}

/**
 * Checks a C2SP checkpoint: first that it is signed by the key the evidence carries for it (or a
 * pinned one) and names that key's log; then against the caller's roots: a pinned log key whose
 * name is the origin, and the witness quorum. A witness cosigns only checkpoints it verified
 * under the log key it knows, so a quorum of trusted witnesses pins the log as well.
 *
 * Each set of keys is checked on its own: the carried key shows self-consistency only, and a
 * signature counts as a pinned key's or a witness's only when it verifies under that key (a key
 * of the evidence's whose name and 4-byte key id collide with a pinned one proves nothing).
 */
export function judgeCheckpoint(
  note: string,
  carriedKey: string | undefined,
  policy: TrustPolicy,
): CheckpointJudgement {
  let checkpoint: Checkpoint;
  let lines: number;
  try {
    const parsed = parseNote(note);
    lines = parsed.signatures.length;
    checkpoint = parseCheckpoint(parsed.text);
  } catch (err) {
    return { ok: false, reason: `the checkpoint is not a signed note: ${(err as Error).message}` };
  }
  let pinnedVerifiers: NoteVerifier[];
  let carried: NoteVerifier | undefined;
  let witnesses: Array<{ name: string; v: NoteVerifier }>;
  try {
    // Only the origin's own keys count as the log's: a pinned key of another log proves nothing here.
    pinnedVerifiers = policy.logKeys.map(verifierFromVkey).filter((v) => v.name === checkpoint.origin);
    // A carried key the caller also pinned is checked once, as the pinned key.
    const own = carriedKey && !policy.logKeys.some((k) => k.trim() === carriedKey.trim());
    const c = own ? verifierFromVkey(carriedKey) : undefined;
    carried = c?.name === checkpoint.origin ? c : undefined;
    witnesses = [...policy.witnesses].map(([name, vkey]) => ({ name, v: verifierFromVkey(vkey) }));
  } catch (err) {
    return { ok: false, reason: `a key cannot be read: ${(err as Error).message}` };
  }
  let pinnedLines: CheckedSignature[];
  let carriedLines: CheckedSignature[];
  let witnessLines: CheckedSignature[];
  try {
    const p = signedBy(note, pinnedVerifiers, "the pinned log key");
    if (!p.ok) return p;
    const c = signedBy(note, carried ? [carried] : [], "the log's key");
    if (!c.ok) return c;
    const w = signedBy(
      note,
      witnesses.map((x) => x.v),
      "your witness",
    );
    if (!w.ok) return w;
    [pinnedLines, carriedLines, witnessLines] = [p.valid, c.valid, w.valid];
  } catch (err) {
    return { ok: false, reason: `the checkpoint does not verify: ${(err as Error).message}` };
  }
  if (pinnedLines.length === 0 && carriedLines.length === 0)
    return { ok: false, reason: `the checkpoint of ${checkpoint.origin} is not signed by the log's key` };
  const cosigned = witnesses.filter((w) => witnessLines.some((l) => l.verifier === w.v));
  const cosigners = cosigned.map((w) => w.name);
  const times = witnessLines.flatMap((l) => {
    const t = cosignatureTime(l.signature.signature);
    return t === undefined ? [] : [t];
  });
  const witnessed = policy.witnesses.size > 0 && quorumMet(policy.quorum, new Set(cosigners));
  const logPinned = pinnedLines.length > 0;
  let reason: string | undefined;
  if (policy.logKeys.length > 0 && !logPinned) reason = `${PINNED_LOG} (origin ${checkpoint.origin})`;
  else if (policy.witnesses.size > 0 && !witnessed)
    reason = `the checkpoint of ${checkpoint.size} entries lacks the witness quorum (cosigned by ${cosigners.join(", ") || "none"} of your witnesses)`;
  return {
    ok: true,
    checkpoint,
    pinned: logPinned || witnessed,
    witnessed,
    cosigners,
    ...(times.length ? { cosignedAt: Math.max(...times) } : {}),
    lines: Math.max(0, lines - 1),
    ...(reason ? { policy: reason } : {}),
  };
}
