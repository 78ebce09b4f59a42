import { CodedError } from "../../formats/coded-error.js";
import type { Queryable } from "../drivers/db.js";

/** One log entry filed under one position, with the position's salt when this filing saw it first. */
export interface FilingEntry {
  position: Uint8Array;
  log_index: number;
  salt: Uint8Array | null;
}

/** What one revision filed: its log entries [from, to) and the positions it saw first. */
export interface IndexFiling {
  from: number;
  to: number;
  entries: ReadonlyArray<{ position: Uint8Array; log_index: number }>;
  salts: ReadonlyArray<{ position: Uint8Array; salt: Uint8Array }>;
}

/** Rows that no revision of ours wrote: ranges that do not run on, or bytes that are not whole entries. */
export class FilingsBroken extends CodedError<"INDEX_ROWS_BROKEN"> {
  readonly code = "INDEX_ROWS_BROKEN";
}

const POSITION = 32;
const ENTRY = POSITION + 8;
const SALTED = 2 * POSITION;

/** Entries packed as position ‖ u64be(log index) (053-vindex-filings). */
export function packEntries(entries: IndexFiling["entries"]): Buffer {
  const out = Buffer.allocUnsafe(entries.length * ENTRY);
  let at = 0;
  for (const e of entries) {
    if (e.position.length !== POSITION) throw new RangeError(`a position of ${e.position.length} bytes`);
    if (!Number.isSafeInteger(e.log_index) || e.log_index < 0)
      throw new RangeError(`a log index must be a non-negative safe integer, not ${e.log_index}`);
    out.set(e.position, at);
    // Two 32-bit halves: a BigInt per entry cost more than the rest of the packing.
    out.writeUInt32BE(Math.floor(e.log_index / 2 ** 32), at + POSITION);
    out.writeUInt32BE(e.log_index >>> 0, at + POSITION + 4);
    at += ENTRY;
  }
  return out;
}

/** Salts packed as position ‖ salt. */
export function packSalts(salts: IndexFiling["salts"]): Buffer {
  const out = Buffer.allocUnsafe(salts.length * SALTED);
  let at = 0;
  for (const s of salts) {
    if (s.position.length !== POSITION || s.salt.length !== POSITION)
      throw new RangeError("a position and its salt are 32 bytes each");
    out.set(s.position, at);
    out.set(s.salt, at + POSITION);
    at += SALTED;
  }
  return out;
}

/**
 * The entries of packed filings, in the order filed, each with its position's salt when one of
 * these filings carries it (a position seen in an earlier filing has none here). A length that is
 * not whole entries, or a log index past 2^53, is refused: such rows were not written by us.
 */
export function unpackFilings(
  rows: ReadonlyArray<{ entries: Uint8Array; salts: Uint8Array }>,
): FilingEntry[] {
  const salts = new Map<string, Uint8Array>();
  for (const r of rows) {
    const b = Buffer.from(r.salts.buffer, r.salts.byteOffset, r.salts.byteLength);
    if (b.length % SALTED !== 0) throw new FilingsBroken(`an index filing's salts are ${b.length} bytes`);
    for (let at = 0; at < b.length; at += SALTED)
      salts.set(
        b.toString("latin1", at, at + POSITION),
        new Uint8Array(b.subarray(at + POSITION, at + SALTED)),
      );
  }
  const out: FilingEntry[] = [];
  for (const r of rows) {
    const b = Buffer.from(r.entries.buffer, r.entries.byteOffset, r.entries.byteLength);
    if (b.length % ENTRY !== 0) throw new FilingsBroken(`an index filing's entries are ${b.length} bytes`);
    for (let at = 0; at < b.length; at += ENTRY) {
      const high = b.readUInt32BE(at + POSITION);
      // Past 2^53 - 1 the index would not read back as itself.
      if (high >= 2 ** 21)
        throw new FilingsBroken(`an index filing names log entry ${b.readBigUInt64BE(at + POSITION)}`);
      out.push({
        position: new Uint8Array(b.subarray(at, at + POSITION)),
        log_index: high * 2 ** 32 + b.readUInt32BE(at + POSITION + 4),
        salt: salts.get(b.toString("latin1", at, at + POSITION)) ?? null,
      });
    }
  }
  return out;
}

/** Stores what a revision filed: one row, whatever it holds (an empty one keeps the ranges whole). */
export async function insertIndexFiling(tx: Queryable, tenantId: string, f: IndexFiling): Promise<void> {
  await tx.query(
    "insert into vindex_filings (tenant_id, log_from, log_to, entries, salts) values ($1, $2, $3, $4, $5)",
    [tenantId, f.from, f.to, packEntries(f.entries), packSalts(f.salts)],
  );
}

// Filings read at once when the index is read into memory: a page of revisions' rows, not the log's.
const PAGE = 64;

/**
 * The entries filed for log entries [from, to), in log order, with the salts of positions first
 * seen there. The filings must cover the range exactly, end to end; rows that do not (one
 * deleted, one moved) are refused here, and rows rewritten inside are refused by the root.
 */
export async function indexFilingsBetween(
  db: Queryable,
  tenantId: string,
  from: number,
  to: number,
): Promise<FilingEntry[]> {
  const out: FilingEntry[] = [];
  let at = from;
  while (at < to) {
    const rows = await db.query<{
      log_from: string | number;
      log_to: string | number;
      entries: Uint8Array;
      salts: Uint8Array;
    }>(
      `select log_from, log_to, entries, salts from vindex_filings
       where tenant_id = $1 and log_to > $2 and log_to <= $3 order by log_to limit ${PAGE}`,
      [tenantId, at, to],
    );
    if (rows.length === 0) break;
    for (const r of rows) {
      if (Number(r.log_from) !== at)
        throw new FilingsBroken(`the index's filings of log ${tenantId} do not run on from entry ${at}`);
      at = Number(r.log_to);
    }
    for (const e of unpackFilings(rows)) out.push(e);
  }
  if (at !== to)
    throw new FilingsBroken(`the index's filings of log ${tenantId} stop at entry ${at}, not ${to}`);
  return out;
}
