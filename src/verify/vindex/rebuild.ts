// `archivist index rebuild`'s checks (docs/complete-trails.md, "Who can check what"): what a reader
// with the tenancy's whole read grant can check beyond the public audit. Every record is read and
// checked against the log's tiles, its keys' positions are verified VRF outputs, and the index
// replayed from them must give every published index root.
import { type Sha256, sha256 } from "../../formats/crypto/sha256.js";
import type { ApiRecord } from "../../formats/record/api-record.js";
import { auditTiles } from "../../formats/tlog/tiles.js";
import { claimsRegisteredStatement } from "../receipts/tree-leaf.js";
import { type AuditOptions, auditIndex, type IndexAudit, type IndexSource, type Progress } from "./audit.js";
import { EntryData } from "./log-tiles.js";
import { entryOf, type RecordFacts, readRecord, verifyPositions } from "./records.js";
import { type KeyPlace, type ReplayResult, replayIndex } from "./replay.js";

/** What a rebuild reads with the caller's read grant, fetched by the caller. */
export interface RecordSource {
  /** Every record the caller may read, a page at a time, in any order (a record may come twice). */
  records(): AsyncIterable<ApiRecord[]>;
  /** The signed statement a registered statement's record stands for, when it can be had. */
  statement(record: ApiRecord): Promise<Uint8Array | undefined>;
  /** The record at log entry `n`, which no list gave; undefined when it is no record (a period's link). */
  entry(n: number): Promise<ApiRecord | undefined>;
  /** The body of `POST /archivist/v1/vindex/positions` for at most 1,000 keys. */
  positions(keys: string[]): Promise<unknown>;
}

export interface RebuildOptions extends AuditOptions {
  /** The log: `tenant/<uuid>`. */
  log: string;
}

export interface IndexRebuild {
  audit: IndexAudit;
  /** The audit's failures, then the rebuild's; the first is the verdict. */
  failures: string[];
  checked: string[];
  notChecked: string[];
  replay?: ReplayResult;
}

/** Keys one positions request asks for at most. */
const POSITIONS_PAGE = 1000;

const tenantOf = (r: ApiRecord) => String(r.tenant_identity ?? r.origin_tenant ?? "");

/** The records of the log below `limit`, by entry number; failures for records that cannot be read. */
async function collectRecords(
  source: RecordSource,
  log: string,
  limit: number,
  failures: string[],
  progress: Progress,
): Promise<{ byEntry: Map<number, RecordFacts>; read: number }> {
  const byEntry = new Map<number, RecordFacts>();
  let read = 0;
  const take = async (record: ApiRecord) => {
    if (tenantOf(record) !== log) return;
    // A statement is fetched only for a record the replay files: one past the revisions is not checked.
    const listed = entryOf(record);
    const files = listed !== undefined && listed < limit;
    const statement = files && claimsRegisteredStatement(record) ? await source.statement(record) : undefined;
    const r = readRecord(record, statement);
    if (r.kind === "unreadable") failures.push(`record ${r.identity}: ${r.reason}`);
    if (r.kind !== "record" || r.facts.entry >= limit) return;
    const held = byEntry.get(r.facts.entry);
    if (held && held.identity !== r.facts.identity)
      failures.push(
        `records ${held.identity} and ${r.facts.identity} both say they are log entry ${r.facts.entry}`,
      );
    else byEntry.set(r.facts.entry, r.facts);
  };
  for await (const page of source.records()) {
    for (const record of page) await take(record);
    read += page.length;
    progress(`read ${read} records`, false);
  }
  // An entry no list gave: a period's link entry, or a record the lists left out (read it then).
  for (let n = 0; n < limit; n++) {
    if (byEntry.has(n)) continue;
    const record = await source.entry(n);
    if (record) await take(record);
  }
  progress(`read ${read} records; ${byEntry.size} are log entries below ${limit}`, true);
  return { byEntry, read };
}

/** Each record's leaf against the log's entry bundle at its entry number. */
async function checkLeaves(
  records: readonly RecordFacts[],
  entries: EntryData,
  failures: string[],
  progress: Progress,
): Promise<number> {
  let bad = 0;
  for (const [i, r] of records.entries()) {
    if (!(await entries.holdsOneOf(r.entry, r.leaves))) {
      if (bad++ === 0)
        failures.push(
          `record ${r.identity} (log entry ${r.entry}): its JSON does not give the data the log's tiles hold at entry ${r.entry}`,
        );
    }
    if ((i + 1) % 1000 === 0 || i + 1 === records.length)
      progress(
        `checked ${i + 1} of ${records.length} records against the log's tiles`,
        i + 1 === records.length,
      );
  }
  if (bad > 1) failures.push(`${bad - 1} more records do not give the data the log holds at their entries`);
  return bad;
}

/** The verified positions of every key of the records, asked for a page at a time. */
async function keyPlaces(
  source: RecordSource,
  log: string,
  vrfKey: Uint8Array,
  records: readonly RecordFacts[],
  progress: Progress,
): Promise<Map<string, KeyPlace>> {
  const keys = [...new Set(records.flatMap((r) => r.keys))].sort();
  const places = new Map<string, KeyPlace>();
  for (let from = 0; from < keys.length; from += POSITIONS_PAGE) {
    const asked = keys.slice(from, from + POSITIONS_PAGE);
    for (const [k, p] of verifyPositions(log, vrfKey, asked, await source.positions(asked))) places.set(k, p);
    progress(`verified ${places.size} of ${keys.length} keys' positions`, places.size === keys.length);
  }
  return places;
}

/** The replay's verdict as a failure line, if it failed. */
function replayFailure(r: ReplayResult): string | undefined {
  if (r.ok) return undefined;
  const shown = r.keys.slice(0, 8).join(", ") + (r.keys.length > 8 ? `, and ${r.keys.length - 8} more` : "");
  const lists = r.keys.length
    ? `the lists that changed from ${r.since} to ${r.logSize} log entries: ${shown}`
    : `no list changed from ${r.since} to ${r.logSize} log entries`;
  return `the index of the log at ${r.logSize} entries (revision ${r.seq}) differs from the one rebuilt from the records: the published root is ${r.published}, the rebuilt one ${r.rebuilt} (${lists})`;
}

/**
 * Rebuilds a log's index from its records and compares it with every published revision: first
 * the public audit (`auditIndex`), then the log's tiles against its checkpoint, every record
 * against its entry in them, every key's position against its VRF proof, and the replay.
 */
export async function rebuildIndex(
  src: IndexSource,
  source: RecordSource,
  o: RebuildOptions,
): Promise<IndexRebuild> {
  const progress = o.progress ?? (() => undefined);
  const hash: Sha256 = o.hash ?? sha256;
  const audit = await auditIndex(src, o);
  const report: IndexRebuild = {
    audit,
    failures: [...audit.failures],
    checked: [...audit.checked],
    notChecked: audit.notChecked.filter((n) => !n.includes("archivist index rebuild")),
  };
  const cp = audit.logCheckpoint;
  if (audit.stopped || !cp || !audit.tiles) return report;
  const compared = audit.revisions.filter((r) => r.logSize <= cp.size);
  const limit = compared.at(-1)?.logSize ?? 0;
  const tiles = await auditTiles(cp.size, cp.root, audit.tiles, (done, all) =>
    progress(`audited ${done} of ${all} tiles`, done === all),
  );
  if (!tiles.ok) {
    report.failures.push(`the log's tiles: ${tiles.reason}`);
    return report;
  }
  const { byEntry, read } = await collectRecords(source, o.log, limit, report.failures, progress);
  const records = [...byEntry.values()].sort((a, b) => a.entry - b.entry);
  const bad = await checkLeaves(records, new EntryData(cp.size, audit.tiles), report.failures, progress);
  if (bad === 0)
    report.checked.push(`${records.length} records are the log's entries they say they are (its tiles)`);
  const first = compared[0];
  if (!first) return report;
  let places: Map<string, KeyPlace>;
  try {
    places = await keyPlaces(source, o.log, first.vrfKey, records, progress);
  } catch (err) {
    report.failures.push((err as Error).message);
    return report;
  }
  report.replay = replayIndex(records, places, compared, hash, (done, all) =>
    progress(`replayed ${done} of ${all} revisions`, done === all),
  );
  const failed = replayFailure(report.replay);
  if (failed) report.failures.push(failed);
  else
    report.checked.push(
      `rebuilt from ${records.length} records (${read} read), all ${compared.length} revisions' index roots match, up to ${limit} log entries`,
    );
  return report;
}
