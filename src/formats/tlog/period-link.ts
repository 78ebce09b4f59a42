import { type Sha256, sha256 } from "../crypto/sha256.js";
import { NoteError, toBase64 } from "./note.js";

/**
 * Log periods (docs/scaling.md, "Log periods"): a tenancy's log is closed at a size, an age or
 * on command; its final checkpoint is signed (and witnessed), and period n+1 begins with an
 * entry that commits period n's origin, size and root. The tree itself goes on (one sequence:
 * receipts, tiles and proofs of every period stay valid as they were); a period is a closed
 * prefix of it, fixed forever, which is what lets its tiles leave the database. The service
 * writes the link entry and a verifier recomputes it (src/verify/tlog/period.ts), from here.
 */

/** The first line of a period link's text: what the link entry's leaf hashes. */
const PERIOD_LINK_HEADER = "archivist.log-period/v1";

/** What period `period`'s first entry commits: the final checkpoint of the period before it. */
interface PeriodLink {
  /** The period the link opens (1 for the link after period 0). */
  period: number;
  /** The previous period's final checkpoint: origin, size (entries, the link's own index) and root. */
  origin: string;
  size: number;
  root: Uint8Array;
}

/** The link's text: header, `period <n>`, origin, size, base64 root, one per line. */
export function formatPeriodLink(l: PeriodLink): string {
  if (!Number.isSafeInteger(l.period) || l.period < 1)
    throw new NoteError("a period link opens period 1 or later");
  if (!Number.isSafeInteger(l.size) || l.size < 1)
    throw new NoteError("a closed period holds at least one entry");
  if (l.origin === "" || l.origin.includes("\n")) throw new NoteError("an origin is one non-empty line");
  if (l.root.length !== 32) throw new NoteError("a period's root is a SHA-256 hash");
  return `${PERIOD_LINK_HEADER}\nperiod ${l.period}\n${l.origin}\n${l.size}\n${toBase64(l.root)}\n`;
}

/**
 * The link entry's leaf: SHA-256 of its text. It is the entry's MMR leaf and its RFC 9162 leaf
 * data (as any record's MMR leaf is), so the link is in both commitments at index `size`.
 */
export function periodLinkLeaf(l: PeriodLink, hash: Sha256 = sha256): Uint8Array {
  return hash(new TextEncoder().encode(formatPeriodLink(l)));
}
