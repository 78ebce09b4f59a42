import { randomBytes } from "node:crypto";
import {
  ed25519PublicKey,
  ed25519Signer,
  formatVkey,
  signatureLine,
} from "../../../../src/core/log/note-sign.js";
import { toBase64, toHex, utf8 } from "../../../../src/formats/crypto/bytes.js";
import * as rfc9162 from "../../../../src/formats/rfc9162/index.js";
import { parseCheckpoint } from "../../../../src/formats/tlog/checkpoint.js";
import { ED25519 } from "../../../../src/formats/tlog/keys.js";
import {
  chainOf,
  encodeProof,
  encodeRevision,
  VindexTrie,
  valueCommitment,
} from "../../../../src/formats/vindex/index.js";
import { type IndexLookup, LOOKUP_FORMAT } from "../../../../src/formats/vindex/lookup-format.js";
import { indexOrigin, vrfInput } from "../../../../src/formats/vindex/map.js";
import { isHashedKey, verifiedPosition } from "../../../../src/formats/vindex/position.js";
import { vrfProve, vrfPublicKey } from "../../../../src/formats/vrf/index.js";
import type { EvidenceBundle } from "../../../../src/verify/index.js";

// A forger's index lookup: everything a genuine one has, made with a log key and a VRF key of the
// forger's own, listing whatever entries it likes. It verifies under the forger's key only, which
// is what pinning the log's key is for.

/** The bundle's log checkpoint: its note's text, origin, size and root. */
export function bundledCheckpoint(bundle: EvidenceBundle) {
  const note = bundle.logs[0]?.checkpoints?.[0]?.note as string;
  const text = note.slice(0, note.indexOf("\n\n") + 1);
  return { note, text, ...parseCheckpoint(text) };
}

/** A forger's Ed25519 log key, signing under `origin` and its index's origin. */
export function forgerKey(origin: string, seed: Uint8Array = randomBytes(32)) {
  const log = ed25519Signer(origin, seed);
  const index = ed25519Signer(indexOrigin(origin), seed);
  const sign = (signer: typeof log, text: string) =>
    signatureLine({ name: signer.name, keyId: signer.keyId, signature: signer.sign(utf8(text)) });
  return {
    vkey: formatVkey(origin, ED25519, ed25519PublicKey(seed)),
    /** A signed note of `text` by the log key. */
    logNote: (text: string) => `${text}\n${sign(log, text)}`,
    indexNote: (text: string) => `${text}\n${sign(index, text)}`,
    /** `note` with a signature line of the forger's added. */
    cosigned: (note: string) => `${note}${sign(log, note.slice(0, note.indexOf("\n\n") + 1))}`,
  };
}

/**
 * The bundle made to carry the forger's key as its log's: its checkpoint keeps the genuine
 * signature and gains the forger's, so it still verifies under the key the bundle carries.
 */
export function carryForgerKey(bundle: EvidenceBundle, forger: ReturnType<typeof forgerKey>): void {
  const cp = bundle.logs[0]?.checkpoints?.[0];
  if (!cp) throw new Error("the bundle has no checkpoint");
  cp.note = forger.cosigned(cp.note);
  cp.key = forger.vkey;
}

/** A lookup of `key` in `log` at `logSize` entries of root `logRoot`, listing `indices`, signed by `forger`. */
export function forgedLookup(
  forger: ReturnType<typeof forgerKey>,
  origin: string,
  at: { log: string; key: string; indices: number[]; logSize: number; logRoot: Uint8Array },
): IndexLookup {
  const vrfSecret = randomBytes(32);
  const vrfKey = vrfPublicKey(vrfSecret);
  const pi = isHashedKey(at.key) ? null : vrfProve(vrfSecret, vrfInput(at.log, at.key));
  const placed = verifiedPosition(at.log, at.key, pi, vrfKey);
  if (!placed) throw new Error("the forger's own VRF proof does not verify");
  const trie = new VindexTrie();
  if (at.indices.length > 0) trie.set(placed.position, valueCommitment(placed.salt, chainOf(at.indices)));
  // Another key beside it, so that the proof is not of a lone leaf.
  trie.set(randomBytes(32), randomBytes(32));
  const indexRoot = trie.root();
  const revision = { logSize: at.logSize, logRoot: at.logRoot, indexRoot, vrfKey };
  const outputRoot = rfc9162.leafHash(encodeRevision(revision));
  return {
    format: LOOKUP_FORMAT,
    version: 1,
    log: at.log,
    key: at.key,
    indices: at.indices,
    vrf_proof: pi === null ? null : toBase64(pi),
    proof: encodeProof(trie.prove(placed.position)),
    revision: {
      seq: 0,
      log_size: at.logSize,
      log_root: toHex(at.logRoot),
      index_root: toHex(indexRoot),
      vrf_key: toHex(vrfKey),
    },
    index_checkpoint: {
      note: forger.indexNote(`${indexOrigin(origin)}\n1\n${toBase64(outputRoot)}\n`),
      inclusion: [],
    },
    log_checkpoint: forger.logNote(`${origin}\n${at.logSize}\n${toBase64(at.logRoot)}\n`),
  };
}
