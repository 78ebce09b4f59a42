// The index's output log as anyone holding only public material checks it (docs/complete-trails.md,
// "Who can check what"): its checkpoint under the log's key, the revisions it commits, how they
// follow one another, and each revision's binding to the log's own tree. Pure: the caller fetches.
import { fromHex, sameBytes, toHex } from "../../formats/crypto/bytes.js";
import { type Sha256, sha256 } from "../../formats/crypto/sha256.js";
import * as rfc9162 from "../../formats/rfc9162/index.js";
import { type Checkpoint, parseCheckpoint } from "../../formats/tlog/checkpoint.js";
import { ed25519Verifier, parseVkey } from "../../formats/tlog/keys.js";
import { verifyNote } from "../../formats/tlog/note.js";
import { VindexError } from "../../formats/vindex/error.js";
import { indexOrigin } from "../../formats/vindex/map.js";
import { encodeRevision } from "../../formats/vindex/revision.js";

/** A revision as the output log serves it, read. */
export interface IndexRevision {
  seq: number;
  logSize: number;
  logRoot: Uint8Array;
  indexRoot: Uint8Array;
  vrfKey: Uint8Array;
}

/** Revisions one request of `…/vindex/revisions` answers at most. */
export const REVISIONS_PAGE = 1000;

const HEX32 = /^[0-9a-f]{64}$/;

function count(v: unknown, what: string): number {
  if (!Number.isSafeInteger(v) || (v as number) < 0) throw new VindexError(`${what} is not a count`);
  return v as number;
}

function hash32(v: unknown, what: string): Uint8Array {
  if (typeof v !== "string" || !HEX32.test(v)) throw new VindexError(`${what} is not 32 bytes of hex`);
  return fromHex(v);
}

/** One page of `GET …/vindex/revisions` read; VindexError for anything else. */
export function readRevisionPage(body: unknown): { size: number; revisions: IndexRevision[] } {
  const page = body as { size?: unknown; revisions?: unknown } | null;
  if (typeof page !== "object" || page === null || !Array.isArray(page.revisions))
    throw new VindexError("the revisions answer has no list of revisions");
  const revisions = page.revisions.map((raw: unknown, i) => {
    const r = (raw ?? {}) as Record<string, unknown>;
    const what = `revision ${typeof r.seq === "number" ? r.seq : `#${i}`}`;
    return {
      seq: count(r.seq, `${what}'s seq`),
      logSize: count(r.log_size, `${what}'s log size`),
      logRoot: hash32(r.log_root, `${what}'s log root`),
      indexRoot: hash32(r.index_root, `${what}'s index root`),
      vrfKey: hash32(r.vrf_key, `${what}'s VRF key`),
    };
  });
  return { size: count(page.size, "the revisions' size"), revisions };
}

/** The output log's leaf of a revision: RFC 9162 leaf hash of its 104-byte entry. */
export function revisionLeaf(r: IndexRevision, hash: Sha256 = sha256): Uint8Array {
  const entry = { logSize: r.logSize, logRoot: r.logRoot, indexRoot: r.indexRoot, vrfKey: r.vrfKey };
  return rfc9162.leafHash(encodeRevision(entry), hash);
}

/** RFC 9162 MTH over leaf hashes: the right fold of the perfect subtrees of the size's binary decomposition. */
export function rootOfLeaves(leaves: readonly Uint8Array[], hash: Sha256 = sha256): Uint8Array {
  if (leaves.length === 0) return hash();
  const stack: Array<{ size: number; h: Uint8Array }> = [];
  for (const leaf of leaves) {
    let node = { size: 1, h: leaf };
    for (let top = stack.at(-1); top && top.size === node.size; top = stack.at(-1)) {
      stack.pop();
      node = { size: 2 * node.size, h: rfc9162.nodeHash(top.h, node.h, hash) };
    }
    stack.push(node);
  }
  let h = (stack.pop() as { h: Uint8Array }).h;
  for (let next = stack.pop(); next; next = stack.pop()) h = rfc9162.nodeHash(next.h, h, hash);
  return h;
}

export type Judged<T> = ({ ok: true } & T) | { ok: false; reason: string };

/**
 * The output log's checkpoint note, verified with the log's key under the index's origin (the
 * log key's name with `/tlog` made `/vindex`): its size and root.
 */
export function verifyIndexCheckpoint(note: string, logVkey: string): Judged<{ checkpoint: Checkpoint }> {
  let key: ReturnType<typeof parseVkey>;
  try {
    key = parseVkey(logVkey);
  } catch (err) {
    return { ok: false, reason: `the log key cannot be read: ${(err as Error).message}` };
  }
  const origin = indexOrigin(key.name);
  if (origin === key.name)
    return { ok: false, reason: `the log key's name ${key.name} is no log's origin (…/tlog)` };
  try {
    const checkpoint = parseCheckpoint(verifyNote(note, [ed25519Verifier(origin, key.publicKey)]).text);
    if (checkpoint.origin !== origin)
      return { ok: false, reason: `the index checkpoint is of ${checkpoint.origin}, not ${origin}` };
    return { ok: true, checkpoint };
  } catch (err) {
    return {
      ok: false,
      reason: `the index checkpoint does not verify with the log key: ${(err as Error).message}`,
    };
  }
}

/**
 * Why the served revisions are not a well-formed output log, if they are not: sequence numbers
 * 0..n-1, log sizes strictly increasing, one VRF key throughout.
 */
export function revisionsFault(revisions: readonly IndexRevision[]): string | undefined {
  for (const [i, r] of revisions.entries()) {
    if (r.seq !== i) return `revision ${i} is served as seq ${r.seq}`;
    const before = revisions[i - 1];
    if (before && r.logSize <= before.logSize)
      return `revision ${i} is at ${r.logSize} log entries, not past revision ${i - 1}'s ${before.logSize}`;
    const first = revisions[0] as IndexRevision;
    if (!sameBytes(r.vrfKey, first.vrfKey))
      return `revision ${i} (the log at ${r.logSize} entries) names VRF key ${toHex(r.vrfKey)}, not ${toHex(first.vrfKey)}`;
  }
  return undefined;
}

/** The consistency proof of the output log between two sizes, as `…/vindex/consistency` answers it. */
export type ConsistencyFetch = (from: number, to: number) => Promise<unknown>;

/** A consistency answer's proof, read (VindexError for anything else). */
function readConsistency(body: unknown, from: number, to: number): Uint8Array[] {
  const c = body as { from?: unknown; to?: unknown; proof?: unknown } | null;
  if (typeof c !== "object" || c === null || c.from !== from || c.to !== to || !Array.isArray(c.proof))
    throw new VindexError(`the consistency answer is not a proof from ${from} to ${to}`);
  return c.proof.map((h: unknown, i) => hash32(h, `consistency hash ${i}`));
}

/**
 * The first served revision that is not the one the signed checkpoint commits, when the served
 * list does not give its root: the shortest prefix whose root the service cannot prove consistent
 * with the signed one ends at it. A genuine prefix has such a proof (the service's tree nodes are
 * the signed tree's), and no proof makes an altered prefix consistent, so the search is sound
 * whatever the proofs served; log2(n) proofs.
 */
export async function firstUnsignedRevision(
  revisions: readonly IndexRevision[],
  signed: Checkpoint,
  consistency: ConsistencyFetch,
  hash: Sha256 = sha256,
): Promise<number> {
  const leaves = revisions.map((r) => revisionLeaf(r, hash));
  const genuine = async (k: number) => {
    const root = rootOfLeaves(leaves.slice(0, k), hash);
    if (k === signed.size) return sameBytes(root, signed.root);
    // A proof that cannot be fetched fails the search (thrown); one that cannot be read proves nothing.
    const body = await consistency(k, signed.size);
    try {
      return rfc9162.verifyConsistency(
        k,
        signed.size,
        root,
        signed.root,
        readConsistency(body, k, signed.size),
      );
    } catch {
      return false;
    }
  };
  // The smallest k in [1, n] whose prefix is not genuine: revision k - 1 is the first altered.
  let lo = 1;
  let hi = Math.min(revisions.length, signed.size);
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (await genuine(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/**
 * Whether the output log of `now` extends the one of `before` (an earlier checkpoint of the same
 * origin, saved by the auditor): the same root at the same size, else a consistency proof.
 */
export async function verifyOutputGrowth(
  before: Checkpoint,
  now: Checkpoint,
  consistency: ConsistencyFetch,
): Promise<string | undefined> {
  if (before.origin !== now.origin) return `the saved checkpoint is of ${before.origin}, not ${now.origin}`;
  if (now.size < before.size)
    return `the index output log shrank: ${now.size} revisions now, ${before.size} when last audited`;
  if (now.size === before.size)
    return sameBytes(now.root, before.root)
      ? undefined
      : `the index output log of ${now.size} revisions has another root than when last audited (a fork)`;
  if (before.size === 0) return undefined;
  let proof: Uint8Array[];
  try {
    proof = readConsistency(await consistency(before.size, now.size), before.size, now.size);
  } catch (err) {
    return `no consistency proof from ${before.size} to ${now.size} revisions: ${(err as Error).message}`;
  }
  return rfc9162.verifyConsistency(before.size, now.size, before.root, now.root, proof)
    ? undefined
    : `the index output log of ${now.size} revisions does not extend the one of ${before.size} last audited (a fork)`;
}
