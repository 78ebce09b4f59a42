// `archivist index audit`'s checks, which need nothing but public material and the log's key:
// the index's output log is signed, served whole, well formed, grows from what an auditor saw
// before, and binds each revision to the log's own tree. What it cannot check is whether an index
// root is the map of the log's records: the records are not public (docs/transparency-log.md).
import { type Sha256, sha256 } from "../../formats/crypto/sha256.js";
import { sameHash } from "../../formats/rfc9162/hash.js";
import type { Checkpoint } from "../../formats/tlog/checkpoint.js";
import { rootFromTiles, type TileFetch } from "../../formats/tlog/tiles.js";
import { EMPTY_ROOT } from "../../formats/tlog/tree.js";
import { verifyCheckpoint } from "../tlog/log-check.js";
import { tilesAt } from "./log-tiles.js";
import {
  type ConsistencyFetch,
  firstUnsignedRevision,
  type IndexRevision,
  REVISIONS_PAGE,
  readRevisionPage,
  revisionLeaf,
  revisionsFault,
  rootOfLeaves,
  verifyIndexCheckpoint,
  verifyOutputGrowth,
} from "./output-log.js";

/** What an audit reads, fetched by the caller (the service's URL, a mirror directory, a test's fakes). */
export interface IndexSource {
  /** The output log's checkpoint note (`…/vindex/checkpoint`). */
  indexCheckpoint(): Promise<string>;
  /** The body of `…/vindex/revisions?from=&to=`. */
  revisions(from: number, to: number): Promise<unknown>;
  /** The body of `…/vindex/consistency?from=&to=`. */
  consistency: ConsistencyFetch;
  /** The log's checkpoint note whose tiles `tiles` reads (`…/tlog/checkpoint`, or a mirror's). */
  logCheckpoint(): Promise<string>;
  tiles: TileFetch;
}

/** A line of progress; `last` ends a phase. */
export type Progress = (line: string, last: boolean) => void;

export interface AuditOptions {
  /** The log's key (a C2SP vkey): the pinned one, else the one the service serves. */
  logVkey: string;
  /** The output checkpoint note saved when this auditor last audited (`--state`). */
  previous?: string | undefined;
  /** SHA-256 for the output log's hashes (node:crypto's in the CLI). */
  hash?: Sha256;
  progress?: Progress;
}

export interface IndexAudit {
  /** Every check that failed, the first one first. */
  failures: string[];
  /** True when a failure left the later checks without what they need. */
  stopped: boolean;
  /** What was checked, a line each. */
  checked: string[];
  notChecked: string[];
  indexNote?: string;
  indexCheckpoint?: Checkpoint;
  logCheckpoint?: Checkpoint;
  revisions: IndexRevision[];
  /** How many revisions are at log sizes the log's checkpoint covers (those are the ones checked). */
  covered: number;
  /** The log's tiles as read at its checkpoint's size (set with `logCheckpoint`). */
  tiles?: TileFetch;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Every revision the signed output checkpoint commits, page by page. */
async function fetchRevisions(src: IndexSource, size: number, progress: Progress): Promise<IndexRevision[]> {
  const out: IndexRevision[] = [];
  while (out.length < size) {
    const from = out.length;
    const page = readRevisionPage(await src.revisions(from, Math.min(from + REVISIONS_PAGE, size)));
    if (page.size < size)
      throw new Error(`the service serves ${page.size} revisions; its index checkpoint signs ${size}`);
    if (page.revisions.length === 0) throw new Error(`the service serves no revision from ${from} on`);
    out.push(...page.revisions.slice(0, size - from));
    progress(`read ${out.length} of ${size} index revisions`, out.length >= size);
  }
  return out;
}

/** The first revision at a size the log's checkpoint covers whose log root is not the log's there, if any. */
async function logRootFault(
  revisions: readonly IndexRevision[],
  checkpoint: Checkpoint,
  tiles: TileFetch,
  progress: Progress,
): Promise<string | undefined> {
  if (!sameHash(await rootFromTiles(checkpoint.size, tiles), checkpoint.root))
    return `the log's tiles do not recompute its checkpoint's root at ${checkpoint.size} entries`;
  const covered = revisions.filter((r) => r.logSize <= checkpoint.size);
  for (const [i, r] of covered.entries()) {
    const root = r.logSize === 0 ? EMPTY_ROOT : await rootFromTiles(r.logSize, tiles);
    if (!sameHash(root, r.logRoot))
      return `revision ${r.seq} is bound to the log at ${r.logSize} entries with a root that is not the log's there`;
    progress(`checked ${i + 1} of ${covered.length} revisions' log roots`, i + 1 === covered.length);
  }
  return undefined;
}

/** The signed output checkpoint and the revisions it commits; a failure stops the audit. */
async function signedRevisions(src: IndexSource, o: AuditOptions, report: IndexAudit, progress: Progress) {
  const note = await src.indexCheckpoint();
  const v = verifyIndexCheckpoint(note, o.logVkey);
  if (!v.ok) throw new Error(v.reason);
  report.indexNote = note;
  report.indexCheckpoint = v.checkpoint;
  report.revisions = await fetchRevisions(src, v.checkpoint.size, progress);
  report.checked.push(
    `the index checkpoint of ${v.checkpoint.size} revisions is signed by the log's key under ${v.checkpoint.origin}`,
  );
  return v.checkpoint;
}

/** The revisions against the signed checkpoint, and the checkpoint against the one saved last time. */
async function outputLogChecks(
  src: IndexSource,
  o: AuditOptions,
  signed: Checkpoint,
  report: IndexAudit,
): Promise<void> {
  const hash = o.hash ?? sha256;
  const { revisions, failures, checked } = report;
  const fault = revisionsFault(revisions);
  if (fault) failures.push(fault);
  else checked.push("revisions are numbered 0.., their log sizes increase, and all name one VRF key");
  if (
    sameHash(
      rootOfLeaves(
        revisions.map((r) => revisionLeaf(r, hash)),
        hash,
      ),
      signed.root,
    )
  )
    checked.push("the served revisions are the ones the index checkpoint signs");
  else {
    const k = await firstUnsignedRevision(revisions, signed, src.consistency, hash);
    const r = revisions[k];
    failures.push(
      `revision ${k}${r ? ` (the log at ${r.logSize} entries)` : ""} as served is not the one the index checkpoint of ${signed.size} revisions signs`,
    );
  }
  if (o.previous === undefined) return;
  const before = verifyIndexCheckpoint(o.previous, o.logVkey);
  const growth = before.ok
    ? await verifyOutputGrowth(before.checkpoint, signed, src.consistency)
    : `the saved index checkpoint: ${before.reason}`;
  if (growth) failures.push(growth);
  else if (before.ok)
    checked.push(
      `the index output log extends the one of ${before.checkpoint.size} revisions audited last time`,
    );
}

/** Each revision's log root against the log's tiles, under the log's checkpoint. */
async function logChecks(src: IndexSource, o: AuditOptions, report: IndexAudit, progress: Progress) {
  const cp = verifyCheckpoint(await src.logCheckpoint(), { logVkey: o.logVkey, witnessVkeys: [], quorum: 0 });
  if (!cp.ok) {
    report.failures.push(`the log's checkpoint: ${cp.reason}`);
    report.stopped = true;
    return;
  }
  const { checkpoint } = cp;
  report.logCheckpoint = checkpoint;
  report.tiles = tilesAt(checkpoint.size, src.tiles);
  const covered = report.revisions.filter((r) => r.logSize <= checkpoint.size).length;
  report.covered = covered;
  const fault = await logRootFault(report.revisions, checkpoint, report.tiles, progress);
  if (fault) report.failures.push(fault);
  else
    report.checked.push(
      `${covered} revisions' log roots are the log's roots at their sizes (its tiles, under its checkpoint of ${checkpoint.size} entries)`,
    );
  const beyond = report.revisions.length - covered;
  if (beyond > 0)
    report.notChecked.push(
      `${beyond} revisions past the log's checkpoint of ${checkpoint.size} entries (their log roots)`,
    );
}

/**
 * Audits a log's index from its public material: the output checkpoint verifies with the log's
 * key; the served revisions are all it signs (their RFC 9162 root is its root), numbered 0..n-1,
 * at increasing log sizes, naming one VRF key; the output log extends the checkpoint saved last
 * time (`previous`); and each revision's log root is the log's root at its size, from the tiles.
 */
export async function auditIndex(src: IndexSource, o: AuditOptions): Promise<IndexAudit> {
  const progress = o.progress ?? (() => undefined);
  const report: IndexAudit = {
    failures: [],
    stopped: false,
    checked: [],
    notChecked: [],
    revisions: [],
    covered: 0,
  };
  let signed: Checkpoint;
  try {
    signed = await signedRevisions(src, o, report, progress);
  } catch (err) {
    report.failures.push(message(err));
    report.stopped = true;
    return report;
  }
  try {
    await outputLogChecks(src, o, signed, report);
    await logChecks(src, o, report, progress);
  } catch (err) {
    report.failures.push(message(err));
    report.stopped = true;
  }
  report.notChecked.push(
    "whether each index root is the map of the log's records: that takes the records (archivist index rebuild, with the tenancy's whole read grant)",
  );
  return report;
}
