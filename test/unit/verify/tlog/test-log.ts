import {
  cosign,
  ed25519PublicKey,
  ed25519Signer,
  formatNote,
  formatVkey,
  signNote,
} from "../../../../src/core/log/note-sign.js";
import { formatCheckpoint } from "../../../../src/core/log/tlog-format.js";
import * as tlog from "../../../../src/verify/tlog/index.js";
import { mth } from "./reference-tree.js";

/** A log of fixed Ed25519 keys and one witness, for known checkpoints and the trust that verifies them. */
export const ORIGIN = "log.example/archivist/v1/merklelogs/t/tlog";
const logSeed = new Uint8Array(32).fill(7);
const wSeed = new Uint8Array(32).fill(8);
const logVkey = formatVkey(ORIGIN, 0x01, ed25519PublicKey(logSeed));
const wVkey = formatVkey("witness.example/w", 0x04, ed25519PublicKey(wSeed));
export const trust = { logVkey, witnessVkeys: [wVkey], quorum: 1 };

/** The log's signed checkpoint of a tree of `entries`, cosigned by the witness when `witnessed`. */
export function checkpointOf(entries: Uint8Array[], witnessed = false): string {
  const text = formatCheckpoint({
    origin: ORIGIN,
    size: entries.length,
    root: mth(entries),
    extensions: [],
  });
  const signed = signNote(text, [ed25519Signer(ORIGIN, logSeed)]);
  if (!witnessed) return signed;
  const note = tlog.parseNote(signed);
  return formatNote(note.text, [
    ...note.signatures,
    cosign("witness.example/w", wSeed, note.text, 1_700_000_000),
  ]);
}
