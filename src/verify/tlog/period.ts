import { type Sha256, sha256 } from "../../formats/crypto/sha256.js";
import { verifyConsistency, verifyInclusion } from "../../formats/rfc9162/verify.js";
import type { Checkpoint } from "../../formats/tlog/checkpoint.js";
import { fromBase64 } from "../../formats/tlog/note.js";
import { periodLinkLeaf } from "../../formats/tlog/period-link.js";
import { leafHash } from "../../formats/tlog/tree.js";
import { type LogTrust, verifyCheckpoint } from "./log-check.js";

/**
 * A log's chain of periods checked (docs/scaling.md, "Log periods"): each closed period's final
 * checkpoint, and the link entry (src/formats/tlog/period-link.ts) that opens the next one.
 */

/** One period as a log serves its chain. */
export interface ChainPeriod {
  period: number;
  /** Its first entry's index (0, or the previous period's final size: its link). */
  start: number;
  /** A closed period's final size; absent for the open one. */
  end?: number | undefined;
  /** A closed period's final checkpoint note (its cosignatures, if any, after the log's signatures). */
  checkpoint?: string | undefined;
  /** RFC 9162 consistency proof from the final checkpoint to the head (base64 hashes). */
  consistency?: string[] | undefined;
  /** Inclusion proof of the next period's link entry (index `end`) in the head (base64 hashes). */
  linkInclusion?: string[] | undefined;
}

/** A log's chain of period roots: every period in order, and the checkpoint they are proven against. */
export interface PeriodChain {
  periods: ChainPeriod[];
  /** The checkpoint note the proofs lead to (the log's published one). */
  head: string;
}

type PeriodChainVerdict =
  | {
      ok: true;
      origin: string;
      head: Checkpoint;
      cosigners: string[];
      periods: Array<{ period: number; start: number; end?: number; root?: Uint8Array }>;
    }
  | { ok: false; reason: string };

const hashes = (lines: string[] | undefined): Uint8Array[] | undefined => {
  if (!lines) return undefined;
  try {
    const hs = lines.map(fromBase64);
    return hs.every((h) => h.length === 32) ? hs : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Follows a log's chain of period roots: the head checkpoint signed by the log (and cosigned by
 * the quorum of `trust`); each closed period's final checkpoint signed by the log's key, of the
 * same origin, its size the next period's start, and consistent with the head (so every later
 * checkpoint extends it); each next period's first entry the link that commits that final
 * checkpoint's origin, size and root, included in the head at that index. The periods are
 * numbered 0, 1, … without gaps, the first starting at entry 0 and only the last open.
 */
export function verifyPeriodChain(
  chain: PeriodChain,
  trust: LogTrust,
  hash: Sha256 = sha256,
): PeriodChainVerdict {
  const head = verifyCheckpoint(chain.head, trust);
  if (!head.ok) return { ok: false, reason: `the head checkpoint: ${head.reason}` };
  const { origin, size: headSize, root: headRoot } = head.checkpoint;
  const periods = chain.periods;
  if (periods.length === 0) return { ok: false, reason: "the chain names no period" };
  const out: Array<{ period: number; start: number; end?: number; root?: Uint8Array }> = [];
  let expectStart = 0;
  for (const [k, p] of periods.entries()) {
    const name = `period ${p.period}`;
    if (p.period !== k)
      return { ok: false, reason: `${name} is where period ${k} belongs (a gap or a reordering)` };
    if (p.start !== expectStart)
      return {
        ok: false,
        reason: `${name} starts at entry ${p.start}, not at ${expectStart} where the one before ended`,
      };
    const last = k === periods.length - 1;
    if (p.end === undefined) {
      if (!last) return { ok: false, reason: `${name} is open, but a later period follows it` };
      if (headSize < p.start + (k > 0 ? 1 : 0))
        return {
          ok: false,
          reason: `the head (${headSize} entries) does not reach ${name}'s first entry ${p.start}`,
        };
      out.push({ period: k, start: p.start });
      break;
    }
    if (!Number.isSafeInteger(p.end) || p.end <= p.start)
      return { ok: false, reason: `${name} ends at ${p.end}, before it starts at ${p.start}` };
    if (!p.checkpoint) return { ok: false, reason: `${name} is closed but has no final checkpoint` };
    // The final checkpoint needs only the log's signature: its consistency with the head, which
    // the quorum cosigned, is what binds it to what the witnesses saw.
    const final = verifyCheckpoint(p.checkpoint, { logVkey: trust.logVkey, witnessVkeys: [], quorum: 0 });
    if (!final.ok) return { ok: false, reason: `${name}'s final checkpoint: ${final.reason}` };
    const fc = final.checkpoint;
    if (fc.origin !== origin)
      return { ok: false, reason: `${name}'s final checkpoint is of ${fc.origin}, the head of ${origin}` };
    if (fc.size !== p.end)
      return {
        ok: false,
        reason: `${name}'s final checkpoint holds ${fc.size} entries, the period ends at ${p.end}`,
      };
    // The next period's link must be in the head, at index `end`.
    if (headSize <= p.end)
      return {
        ok: false,
        reason: `the head (${headSize} entries) does not yet include period ${k + 1}'s first entry ${p.end}`,
      };
    const consistency = hashes(p.consistency);
    if (!consistency || !verifyConsistency(fc.size, headSize, fc.root, headRoot, consistency))
      return {
        ok: false,
        reason: `${name}'s final checkpoint (${fc.size} entries) is not consistent with the head (${headSize} entries)`,
      };
    const link = periodLinkLeaf({ period: k + 1, origin: fc.origin, size: fc.size, root: fc.root }, hash);
    const inclusion = hashes(p.linkInclusion);
    if (!inclusion || !verifyInclusion(p.end, headSize, leafHash(link, hash), inclusion, headRoot))
      return {
        ok: false,
        reason: `entry ${p.end} of the head is not period ${k + 1}'s link to ${name}'s final checkpoint`,
      };
    out.push({ period: k, start: p.start, end: p.end, root: fc.root });
    expectStart = p.end;
    if (last) return { ok: false, reason: `${name} is closed but no open period follows it` };
  }
  return { ok: true, origin, head: head.checkpoint, cosigners: head.cosigners, periods: out };
}
