import {
  cosign,
  ed25519PublicKey,
  ed25519Signer,
  formatNote,
  formatVkey,
  signNote,
} from "../../../../src/core/log/note-sign.js";
import { formatCheckpoint } from "../../../../src/core/log/tlog-format.js";
import { parseNote } from "../../../../src/formats/tlog/index.js";
import { mth } from "./reference-tree.js";

/** The vkey of the Ed25519 key made from `seed`: type 0x01 for a log's key, 0x04 for a witness's. */
export const vkeyOf = (name: string, type: number, seed: Uint8Array): string =>
  formatVkey(name, type, ed25519PublicKey(seed));

/** Note `text` signed by the log key (`seed`) named `origin`, then cosigned by each witness at `at` (s). */
export function signedNote(
  text: string,
  origin: string,
  seed: Uint8Array,
  witnesses: ReadonlyArray<{ name: string; seed: Uint8Array }> = [],
  at = 1_700_000_000,
): string {
  const signed = signNote(text, [ed25519Signer(origin, seed)]);
  if (witnesses.length === 0) return signed;
  return formatNote(text, [
    ...parseNote(signed).signatures,
    ...witnesses.map((w) => cosign(w.name, w.seed, text, at)),
  ]);
}

/** A log of fixed Ed25519 keys and one witness, for known checkpoints and the trust that verifies them. */
export const ORIGIN = "log.example/archivist/v1/merklelogs/t/tlog";
const logSeed = new Uint8Array(32).fill(7);
const wSeed = new Uint8Array(32).fill(8);
const logVkey = vkeyOf(ORIGIN, 0x01, logSeed);
const wVkey = vkeyOf("witness.example/w", 0x04, wSeed);
export const trust = { logVkey, witnessVkeys: [wVkey], quorum: 1 };

/** The log's signed checkpoint of a tree of `entries`, cosigned by the witness when `witnessed`. */
export function checkpointOf(entries: Uint8Array[], witnessed = false): string {
  const text = formatCheckpoint({
    origin: ORIGIN,
    size: entries.length,
    root: mth(entries),
    extensions: [],
  });
  return signedNote(text, ORIGIN, logSeed, witnessed ? [{ name: "witness.example/w", seed: wSeed }] : []);
}
