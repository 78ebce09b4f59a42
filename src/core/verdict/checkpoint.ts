import { type Checkpoint, parseCheckpoint } from "../tlog/checkpoint.js";
import { parseNote, verifyNote } from "../tlog/note.js";
import { verifierFromVkey } from "../tlog/vkey-verifier.js";
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
      /** Signature lines besides the log's own: cosignatures, checked or not. */
      lines: number;
      /** When the caller's roots are not met: why. */
      policy?: string;
    }
  | { ok: false; reason: string };

const PINNED_LOG = "the checkpoint is not signed by a log key you pinned";

/**
 * Checks a C2SP checkpoint: first that it is signed by the key the evidence carries for it (or a
 * pinned one) and names that key's log; then against the caller's roots: a pinned log key whose
 * name is the origin, and the witness quorum. A witness cosigns only checkpoints it verified
 * under the log key it knows, so a quorum of trusted witnesses pins the log as well.
 */
export function judgeCheckpoint(
  note: string,
  carriedKey: string | undefined,
  policy: TrustPolicy,
): CheckpointJudgement {
  let text: string;
  let checkpoint: Checkpoint;
  let lines: number;
  try {
    const parsed = parseNote(note);
    text = parsed.text;
    lines = parsed.signatures.length;
    checkpoint = parseCheckpoint(text);
  } catch (err) {
    return { ok: false, reason: `the checkpoint is not a signed note: ${(err as Error).message}` };
  }
  const logKeys = [...new Set([...(carriedKey ? [carriedKey] : []), ...policy.logKeys])];
  let logVerifiers: ReturnType<typeof verifierFromVkey>[];
  let witnessVerifiers: Array<{ name: string; v: ReturnType<typeof verifierFromVkey> }>;
  try {
    logVerifiers = logKeys.map(verifierFromVkey);
    witnessVerifiers = [...policy.witnesses].map(([name, vkey]) => ({ name, v: verifierFromVkey(vkey) }));
  } catch (err) {
    return { ok: false, reason: `a key cannot be read: ${(err as Error).message}` };
  }
  let verified: Array<{ name: string; keyId: number }>;
  try {
    // Only the origin's own keys count as the log's: a pinned key of another log proves nothing here.
    const ownKeys = logVerifiers.filter((v) => v.name === checkpoint.origin);
    verified = verifyNote(note, [...ownKeys, ...witnessVerifiers.map((w) => w.v)]).verified;
  } catch (err) {
    return { ok: false, reason: `the checkpoint does not verify: ${(err as Error).message}` };
  }
  const signedBy = (vkey: string) => {
    const v = verifierFromVkey(vkey);
    return v.name === checkpoint.origin && verified.some((s) => s.name === v.name && s.keyId === v.keyId);
  };
  if (!logKeys.some(signedBy))
    return { ok: false, reason: `the checkpoint of ${checkpoint.origin} is not signed by the log's key` };
  const cosigners = witnessVerifiers
    .filter((w) => verified.some((s) => s.name === w.v.name && s.keyId === w.v.keyId))
    .map((w) => w.name);
  const witnessed = policy.witnesses.size > 0 && quorumMet(policy.quorum, new Set(cosigners));
  const logPinned = policy.logKeys.some(signedBy);
  let reason: string | undefined;
  if (policy.logKeys.length > 0 && !logPinned) reason = `${PINNED_LOG} (origin ${checkpoint.origin})`;
  else if (policy.witnesses.size > 0 && !witnessed)
    reason = `the checkpoint of size ${checkpoint.size} lacks the witness quorum (cosigned by ${cosigners.join(", ") || "none"} of your witnesses)`;
  return {
    ok: true,
    checkpoint,
    pinned: logPinned || witnessed,
    witnessed,
    cosigners,
    lines: Math.max(0, lines - 1),
    ...(reason ? { policy: reason } : {}),
  };
}
