import { fromBase64, fromHex, sameBytes, toHex } from "../../formats/crypto/bytes.js";
import * as rfc9162 from "../../formats/rfc9162/index.js";
import { parseCheckpoint } from "../../formats/tlog/checkpoint.js";
import { ed25519Verifier, parseVkey } from "../../formats/tlog/keys.js";
import { verifyNote } from "../../formats/tlog/note.js";
import { verifierFromVkey } from "../../formats/tlog/vkey-verifier.js";
import {
  chainOf,
  decodeProof,
  encodeRevision,
  valueCommitment,
  verifyVindexProof,
} from "../../formats/vindex/index.js";
import { type IndexLookup, LOOKUP_FORMAT } from "../../formats/vindex/lookup-format.js";
import { canonicalKey, indexOrigin } from "../../formats/vindex/map.js";
import { verifiedPosition } from "../../formats/vindex/position.js";

/** What a verified lookup proves. */
export interface LookupProven {
  ok: true;
  log: string;
  key: string;
  /** True when the key has entries; false when the proof shows it has none. */
  present: boolean;
  /** Every log entry filed under the key below `logSize`: no other exists there. */
  indices: number[];
  logSize: number;
  /** The log's root at `logSize`, as its signed checkpoint gives it (hex). */
  logRoot: string;
  /** The index revision the answer was made at (the output log's entry). */
  revision: number;
  /** The VRF key the revision names (hex): the same for every revision of a service. */
  vrfKey: string;
}

export type LookupVerdict = LookupProven | { ok: false; reason: string };

const HEX32 = /^[0-9a-f]{64}$/;

function shapeFault(x: Partial<IndexLookup>): string | undefined {
  if (x.format !== LOOKUP_FORMAT || x.version !== 1) return `not a ${LOOKUP_FORMAT} of version 1`;
  if (typeof x.log !== "string" || !/^tenant\/[0-9a-f-]{36}$/.test(x.log))
    return "its log is not tenant/<uuid>";
  if (typeof x.key !== "string" || canonicalKey(x.key) !== x.key)
    return "its key is not a key in its one spelling";
  if (!Array.isArray(x.indices) || !x.indices.every((i) => Number.isSafeInteger(i) && i >= 0))
    return "its indices are not log entry numbers";
  if (x.indices.some((i, k) => k > 0 && i <= (x.indices?.[k - 1] ?? 0))) return "its indices do not increase";
  const r = x.revision;
  if (!r || !Number.isSafeInteger(r.seq) || r.seq < 0 || !Number.isSafeInteger(r.log_size) || r.log_size < 0)
    return "its revision has no sequence number or log size";
  if (![r.log_root, r.index_root, r.vrf_key].every((h) => typeof h === "string" && HEX32.test(h)))
    return "its revision's roots and VRF key are not 32-byte hex";
  if (typeof x.vrf_proof !== "string" && x.vrf_proof !== null)
    return "its VRF proof is neither base64 nor null";
  const c = x.index_checkpoint;
  if (
    !c ||
    typeof c.note !== "string" ||
    !Array.isArray(c.inclusion) ||
    !c.inclusion.every((h) => HEX32.test(h))
  )
    return "it has no index checkpoint with an inclusion proof";
  if (typeof x.log_checkpoint !== "string") return "it has no log checkpoint";
  if ((x.indices.at(-1) ?? -1) >= r.log_size)
    return `it names a log entry at or past the ${r.log_size} entries its revision covers`;
  return undefined;
}

/** The checkpoint a note signs under `verifier`'s key, or the reason it does not. */
function signedCheckpoint(note: string, verifier: ReturnType<typeof verifierFromVkey>, what: string) {
  try {
    return parseCheckpoint(verifyNote(note, [verifier]).text);
  } catch (err) {
    return `${what} does not verify with the log key: ${(err as Error).message}`;
  }
}

/**
 * Checks a lookup against the log's key (a C2SP vkey: the one pinned, else the one a bundle
 * carries): the log's checkpoint at the revision's size, the output log's checkpoint and the
 * revision's inclusion in it (both signed by that key), the VRF proof of the key's position under
 * the VRF key the signed revision names, and the trie proof of the list (or of its absence).
 * `vrfKey`, when given, must be that key (one pinned from an earlier lookup).
 *
 * @example
 * ```ts
 * const v = verifyLookup(bundle.index?.[0], pinnedLogVkey);
 * if (v.ok) console.log(`${v.key}: ${v.indices.join(", ")} of the first ${v.logSize}`);
 * ```
 */
export function verifyLookup(lookup: unknown, logVkey: string, vrfKey?: Uint8Array): LookupVerdict {
  const fail = (reason: string): LookupVerdict => ({ ok: false, reason });
  if (typeof lookup !== "object" || lookup === null) return fail("the lookup is not an object");
  const x = lookup as IndexLookup;
  const shape = shapeFault(x);
  if (shape) return fail(`the lookup is malformed: ${shape}`);
  const r = x.revision;
  let logKey: ReturnType<typeof parseVkey>;
  try {
    logKey = parseVkey(logVkey);
  } catch (err) {
    return fail(`the log key cannot be read: ${(err as Error).message}`);
  }
  const logCp = signedCheckpoint(x.log_checkpoint, verifierFromVkey(logVkey), "the log checkpoint");
  if (typeof logCp === "string") return fail(logCp);
  if (logCp.size !== r.log_size || toHex(logCp.root) !== r.log_root)
    return fail(
      `the revision is bound to ${r.log_size} entries with another root than the log's signed checkpoint`,
    );
  const origin = indexOrigin(logCp.origin);
  const indexCp = signedCheckpoint(
    x.index_checkpoint.note,
    ed25519Verifier(origin, logKey.publicKey),
    "the index checkpoint",
  );
  if (typeof indexCp === "string") return fail(indexCp);
  if (indexCp.origin !== origin || indexCp.size !== r.seq + 1)
    return fail(`the index checkpoint is not of ${origin} at ${r.seq + 1} revisions`);
  const revision = {
    logSize: r.log_size,
    logRoot: fromHex(r.log_root),
    indexRoot: fromHex(r.index_root),
    vrfKey: fromHex(r.vrf_key),
  };
  const leaf = rfc9162.leafHash(encodeRevision(revision));
  if (
    !rfc9162.verifyInclusion(r.seq, r.seq + 1, leaf, x.index_checkpoint.inclusion.map(fromHex), indexCp.root)
  )
    return fail(`revision ${r.seq} is not in the signed index checkpoint`);
  if (vrfKey && !sameBytes(vrfKey, revision.vrfKey))
    return fail("the revision names another VRF key than the one pinned");
  let pi: Uint8Array | null;
  try {
    pi = x.vrf_proof === null ? null : fromBase64(x.vrf_proof);
  } catch {
    return fail("the VRF proof is not base64");
  }
  const placed = verifiedPosition(x.log, x.key, pi, revision.vrfKey);
  if (!placed) return fail(`the VRF proof of ${x.key}'s position does not verify (or is where none belongs)`);
  const { position, salt } = placed;
  let proof: ReturnType<typeof decodeProof>;
  try {
    proof = decodeProof(x.proof);
  } catch (err) {
    return fail(`the index proof cannot be read: ${(err as Error).message}`);
  }
  const expected = x.indices.length > 0 ? valueCommitment(salt, chainOf(x.indices)) : null;
  const v = verifyVindexProof(revision.indexRoot, position, proof, expected);
  if (!v.ok)
    return fail(
      `the index proof does not show ${x.indices.length > 0 ? "these entries" : "no entries"} under ${x.key}: ${v.reason}`,
    );
  return {
    ok: true,
    log: x.log,
    key: x.key,
    present: x.indices.length > 0,
    indices: [...x.indices],
    logSize: r.log_size,
    logRoot: r.log_root,
    revision: r.seq,
    vrfKey: r.vrf_key,
  };
}
