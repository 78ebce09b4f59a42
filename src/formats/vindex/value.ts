// A position's value is the ordered list of log entry indices filed under it. It is committed as a
// hash chain, so that an index appended to a long list costs two hashes, not the whole list:
// the index keeps (n, c_n) per position and never the list itself.
import { type Sha256, sha256 } from "../crypto/sha256.js";
import { sha256Into, sha256Range } from "../crypto/sha256-short.js";
import { VindexError } from "./error.js";
import { check32, HASH_SIZE } from "./hash.js";

/** A list's chain state: its length n and c_n (c_0 = 32 zero bytes). */
export interface ValueChain {
  readonly count: number;
  readonly head: Uint8Array;
}

const COMMITMENT_TAG = 0x02;
const LINK_TAG = 0x03;

/** Writes a safe non-negative integer as u64be at `at` (two halves: no BigInt made for it). */
function putU64be(out: Uint8Array, at: number, value: number): void {
  const high = Math.floor(value / 2 ** 32);
  const low = value % 2 ** 32;
  for (let i = 0; i < 4; i++) {
    out[at + 3 - i] = (high >>> (8 * i)) & 0xff;
    out[at + 7 - i] = (low >>> (8 * i)) & 0xff;
  }
}

/** The empty list's chain: n = 0, c_0 = 32 zero bytes. */
export function emptyValue(): ValueChain {
  return { count: 0, head: new Uint8Array(HASH_SIZE) };
}

/** The chain once `index` is appended: c_k = SHA-256(0x03 ‖ c_{k-1} ‖ u64be(index)). */
export function appendIndex(chain: ValueChain, index: number, hash: Sha256 = sha256): ValueChain {
  // Indices go to u64be as safe integers: one past 2^53 would be written as a neighbour.
  if (!Number.isSafeInteger(index) || index < 0)
    throw new VindexError(`a log entry index must be a non-negative safe integer, not ${index}`);
  if (!Number.isSafeInteger(chain.count) || chain.count < 0)
    throw new VindexError("a chain's count is broken");
  check32(chain.head, "a chain's head");
  // The input laid out whole and hashed as one part: the service's hash then copies nothing, and
  // an index revision takes one link per record it files.
  const input = new Uint8Array(1 + HASH_SIZE + 8);
  input[0] = LINK_TAG;
  input.set(chain.head, 1);
  putU64be(input, 1 + HASH_SIZE, index);
  return { count: chain.count + 1, head: hash(input) };
}

/**
 * The chain of a whole list. Its indices must increase strictly, as the log appends them: a list
 * out of order is a bug of the caller's, and its commitment would differ from the index's.
 */
export function chainOf(indices: readonly number[], hash: Sha256 = sha256): ValueChain {
  let chain = emptyValue();
  let last = -1;
  for (const index of indices) {
    if (index <= last) throw new VindexError(`log entry indices must increase: ${index} after ${last}`);
    chain = appendIndex(chain, index, hash);
    last = index;
  }
  return chain;
}

/**
 * The commitment a leaf holds: SHA-256(0x02 ‖ salt ‖ u64be(n) ‖ c_n). The salt, per position, keeps
 * a list that is short and guessable (one index, say) from being found by hashing candidates.
 */
export function valueCommitment(salt: Uint8Array, chain: ValueChain, hash: Sha256 = sha256): Uint8Array {
  check32(salt, "a salt");
  check32(chain.head, "a chain's head");
  if (!Number.isSafeInteger(chain.count) || chain.count < 0)
    throw new VindexError("a chain's count is broken");
  const input = new Uint8Array(1 + HASH_SIZE + 8 + HASH_SIZE);
  input[0] = COMMITMENT_TAG;
  input.set(salt, 1);
  putU64be(input, 1 + HASH_SIZE, chain.count);
  input.set(chain.head, 1 + HASH_SIZE + 8);
  return hash(input);
}

// A position's value kept as its commitment's input, 0x02 ‖ salt ‖ u64be(n) ‖ c_n: a link is
// hashed into it in place and the commitment is its hash, so a list appended to allocates nothing
// (the service keeps one per position it has seen, side by side in one array, and files each
// entry of a revision this way).
const STATE_COUNT = 1 + HASH_SIZE;
const STATE_HEAD = STATE_COUNT + 8;
/** The bytes of a `ValueState`. */
export const VALUE_STATE_SIZE = STATE_HEAD + HASH_SIZE;

/** Writes the empty list's state under `salt` to `bytes` at `at`. */
export function valueStateAt(bytes: Uint8Array, at: number, salt: Uint8Array): void {
  check32(salt, "a salt");
  if (at < 0 || at + VALUE_STATE_SIZE > bytes.length) throw new VindexError("no room for a value state");
  bytes[at] = COMMITMENT_TAG;
  bytes.set(salt, at + 1);
  bytes.fill(0, at + STATE_COUNT, at + VALUE_STATE_SIZE);
}

/** How many indices the state's list holds. */
export function stateCount(state: Uint8Array, at = 0): number {
  let high = 0;
  let low = 0;
  for (let i = 0; i < 4; i++) {
    high = high * 256 + (state[at + STATE_COUNT + i] as number);
    low = low * 256 + (state[at + STATE_COUNT + 4 + i] as number);
  }
  return high * 2 ** 32 + low;
}

// The link's input, 0x03 ‖ c_{k-1} ‖ u64be(index): read whole by the hash before anything else writes it.
const link = new Uint8Array(1 + HASH_SIZE + 8);
link[0] = LINK_TAG;

/** Refuses a state that is not one: too short where it lies, or without its tag. */
function checkState(bytes: Uint8Array, at: number): void {
  if (at < 0 || at + VALUE_STATE_SIZE > bytes.length || bytes[at] !== COMMITMENT_TAG)
    throw new VindexError("a value state is broken");
}

/** `appendIndex` on the state at `at` of `bytes`, in place. */
export function appendToStateAt(bytes: Uint8Array, at: number, index: number): void {
  if (!Number.isSafeInteger(index) || index < 0)
    throw new VindexError(`a log entry index must be a non-negative safe integer, not ${index}`);
  checkState(bytes, at);
  for (let i = 0; i < HASH_SIZE; i++) link[1 + i] = bytes[at + STATE_HEAD + i] as number;
  putU64be(link, 1 + HASH_SIZE, index);
  sha256Into(link, bytes, at + STATE_HEAD);
  putU64be(bytes, at + STATE_COUNT, stateCount(bytes, at) + 1);
}

/** `valueCommitment` of the state at `from` of `bytes`, written to `out` at `at`. */
export function stateCommitmentAt(bytes: Uint8Array, from: number, out: Uint8Array, at: number): void {
  checkState(bytes, from);
  sha256Range(bytes, from, VALUE_STATE_SIZE, out, at);
}
