// A revision entry is the leaf data of the index's own log: it binds an index root to the
// checkpoint of the log it indexes, so a client that trusts the one can find the other, and names
// the VRF key its positions were made with, so the log key that signs it vouches for that key too.
import { u64be } from "../crypto/bytes.js";
import { VindexError } from "./error.js";
import { check32, HASH_SIZE } from "./hash.js";

/**
 * The index root `indexRoot` covers the first `logSize` entries of the log whose root is
 * `logRoot`, its positions made with the VRF key `vrfKey` (an Ed25519 point, 32 bytes).
 */
export interface VindexRevision {
  readonly logSize: number;
  readonly logRoot: Uint8Array;
  readonly indexRoot: Uint8Array;
  readonly vrfKey: Uint8Array;
}

/** Bytes of a revision entry. */
export const REVISION_SIZE = 8 + 3 * HASH_SIZE;

/** u64be(logSize) ‖ logRoot ‖ indexRoot ‖ vrfKey: 104 bytes. */
export function encodeRevision(revision: VindexRevision): Uint8Array {
  const { logSize, logRoot, indexRoot, vrfKey } = revision;
  if (!Number.isSafeInteger(logSize) || logSize < 0)
    throw new VindexError(`a log size must be a non-negative safe integer, not ${logSize}`);
  check32(logRoot, "a log root");
  check32(indexRoot, "an index root");
  check32(vrfKey, "a VRF key");
  const out = new Uint8Array(REVISION_SIZE);
  out.set(u64be(logSize), 0);
  out.set(logRoot, 8);
  out.set(indexRoot, 8 + HASH_SIZE);
  out.set(vrfKey, 8 + 2 * HASH_SIZE);
  return out;
}

/** A revision entry's fields; a log size past 2^53 - 1 is refused, as no log of ours reaches it. */
export function decodeRevision(bytes: Uint8Array): VindexRevision {
  if (!(bytes instanceof Uint8Array) || bytes.length !== REVISION_SIZE)
    throw new VindexError(`a revision entry is ${REVISION_SIZE} bytes`);
  const size = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, false);
  if (size > BigInt(Number.MAX_SAFE_INTEGER)) throw new VindexError("a revision's log size is past 2^53 - 1");
  return {
    logSize: Number(size),
    logRoot: bytes.slice(8, 8 + HASH_SIZE),
    indexRoot: bytes.slice(8 + HASH_SIZE, 8 + 2 * HASH_SIZE),
    vrfKey: bytes.slice(8 + 2 * HASH_SIZE, REVISION_SIZE),
  };
}
