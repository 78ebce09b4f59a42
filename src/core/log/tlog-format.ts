import { toBase64 } from "../../formats/crypto/bytes.js";
import type { Checkpoint } from "../../formats/tlog/checkpoint.js";
import { NoteError } from "../../formats/tlog/note.js";
import { TLOG_PROOF_HEADER, type TlogProof } from "../../formats/tlog/proof.js";
import { STATEMENT as PROOF_EXTRA_STATEMENT, type ProofExtra } from "../../formats/tlog/proof-extra.js";

/**
 * The log's side of the C2SP formats it publishes: checkpoint texts, tlog-proofs and their extra
 * data, entry bundles. Each is read back by its parse half in the room (tlog/checkpoint.ts,
 * proof.ts, proof-extra.ts, tiles.ts), which is all a verifier runs.
 */

export function formatCheckpoint(c: Checkpoint): string {
  if (c.origin === "" || c.origin.includes("\n"))
    throw new NoteError("a checkpoint origin is one non-empty line");
  if (c.extensions.some((e) => e === "" || e.includes("\n")))
    throw new NoteError("checkpoint extension lines must be non-empty");
  return [c.origin, String(c.size), toBase64(c.root), ...c.extensions].map((l) => `${l}\n`).join("");
}

export function formatTlogProof(p: TlogProof): string {
  if (!Number.isSafeInteger(p.index) || p.index < 0) throw new NoteError("a proof's index is a whole number");
  const lines = [TLOG_PROOF_HEADER];
  if (p.extra) lines.push(`extra ${toBase64(p.extra)}`);
  lines.push(`index ${p.index}`, ...p.path.map(toBase64), "");
  return `${lines.join("\n")}\n${p.checkpoint}`;
}

export function formatProofExtra(e: ProofExtra): Uint8Array {
  return new TextEncoder().encode(
    e.statement ? `${e.identity}\n${PROOF_EXTRA_STATEMENT}${toBase64(e.statement)}` : e.identity,
  );
}

/** Entry bundles: each entry a big-endian uint16 length, then its bytes. */
export function formatEntryBundle(entries: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(entries.reduce((n, e) => n + 2 + e.length, 0));
  let at = 0;
  for (const e of entries) {
    if (e.length > 0xffff) throw new RangeError("an entry bundle entry is at most 65535 bytes");
    out[at] = e.length >> 8;
    out[at + 1] = e.length & 0xff;
    out.set(e, at + 2);
    at += 2 + e.length;
  }
  return out;
}
