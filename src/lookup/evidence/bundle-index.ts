import { leafIndexOfMmrIndex } from "../../formats/mmr/index.js";
import { commitOf, logIndexOf } from "../../formats/record/api-record.js";
import type { IndexLookup } from "../../formats/vindex/lookup-format.js";
import { recordIndexKeys } from "../../formats/vindex/map.js";
import { claimsRegisteredStatement } from "../../verify/index.js";
import { LookupError, type PublicRecord } from "../public-api.js";
import type { EvidenceSource } from "./source.js";

// The evidence bundle's index lookup (docs/evidence-bundle.md, "Complete as of a log size"): the
// verifiable index's answer for the subject's key, asked as the caller, and the records it lists
// that a listing of asset events does not give (a vCon's asset-free events).

/** A read refused (or not made) answers undefined; over the rate limit is no such answer, and fails the gathering. */
async function unlessRefused<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    refusal(err);
    return undefined;
  }
}

/** `err` as a refusal the gathering goes on past; anything else (over the rate limit included) is thrown on. */
function refusal(err: unknown): LookupError {
  if (err instanceof LookupError && err.status !== 429) return err;
  throw err;
}

/**
 * The index's answer for `key` in the caller's tenancy's log, or undefined when there is none to
 * carry: a caller that may not read every record of the key (404, as for an absent key), an index
 * not caught up or not kept (503), any other refusal. The bundle is then not proven complete,
 * never refused; only going over the rate limit fails it, as every other step of the gathering.
 */
export function subjectLookup(source: EvidenceSource, key: string): Promise<IndexLookup | undefined> {
  return unlessRefused(() => source.indexLookup(key));
}

const logOfRecord = (r: PublicRecord) => {
  const t = r.tenant_identity ?? r.origin_tenant;
  return typeof t === "string" && t ? `tenant/${t.replace(/^tenant\//, "")}` : "";
};

/** The log entry a record is at, as its commit states it (the verifier proves it by its receipts). */
function entryOfRecord(r: PublicRecord): { log: string; entry: number } | undefined {
  const index = logIndexOf(commitOf(r)?.index);
  if (index === undefined) return undefined;
  try {
    return { log: logOfRecord(r), entry: leafIndexOfMmrIndex(index) };
  } catch {
    return undefined;
  }
}

/** The entries of `log` that `records` are at. */
function entriesIn(records: readonly PublicRecord[], log: string): Set<number> {
  const out = new Set<number>();
  for (const r of records) {
    const e = entryOfRecord(r);
    if (e?.log === log) out.add(e.entry);
  }
  return out;
}

/** Asset-free events a vCon's bundle adds, and the statement each registered statement's records. */
export interface FreeEvents {
  records: PublicRecord[];
  /** By identity: the signed statement a registered statement's event records. */
  statements: Map<string, Uint8Array>;
  /** By identity: why a registered statement's statement could not be read (the service's refusal). */
  unavailable: Map<string, string>;
}

const NONE = (): FreeEvents => ({ records: [], statements: new Map(), unavailable: new Map() });

/** A registered statement's statement, or the refusal that kept it (over the rate limit fails the gathering). */
async function statementOf(source: EvidenceSource, id: string): Promise<Uint8Array | string> {
  try {
    return await source.statement(id);
  } catch (err) {
    const refused = refusal(err);
    return `the service did not give it${refused.status ? ` (${refused.status})` : ""}: ${refused.message}`;
  }
}

/**
 * The asset-free events filed under a vCon's key that `have` lacks, when the lookup lists entries
 * the asset events gathered are not at: found by the statement search on the vCon's subject
 * (which gives a tenancy's administrators its asset-free events; the lookup answered the caller,
 * so it may read them), each read as the API returns it. A registered statement's event comes with
 * its statement, which its RFC 9162 leaf (the payload's hash) is checked with, or, when the
 * statement cannot be read, with the refusal: the bundle then says so of that record
 * (`statement_unavailable`) and its verdict names what is left unchecked, where leaving the
 * record out would make the whole bundle not proven complete without saying why.
 */
export async function missingFreeEvents(
  source: EvidenceSource,
  lookup: IndexLookup,
  have: readonly PublicRecord[],
): Promise<FreeEvents> {
  const at = entriesIn(have, lookup.log);
  if (lookup.indices.every((i) => at.has(i))) return NONE();
  const known = new Set(have.map((r) => String(r.identity)));
  const found = await unlessRefused(() => source.subjectStatements(lookup.key));
  if (!found) return NONE();
  const ids = new Set(
    found.map((s) => String(s.identity)).filter((id) => id.startsWith("events/") && !known.has(id)),
  );
  const out = NONE();
  for (const id of ids) {
    const record = await source.freeEvent(id);
    if (!recordIndexKeys(record).includes(lookup.key)) continue;
    if (claimsRegisteredStatement(record)) {
      const statement = await statementOf(source, id);
      if (typeof statement === "string") out.unavailable.set(id, statement);
      else out.statements.set(id, statement);
    }
    out.records.push(record);
  }
  return out;
}

/**
 * Whether the lookup may go in the bundle: of a log the bundle's records are in, every entry it
 * lists a gathered record's, every gathered record of the key below its log size listed. A lookup
 * that disagrees with what the caller's listings gave (a record written since, a listing that
 * spells the subject otherwise) is left out: the bundle is then not proven complete rather than
 * contradicting itself.
 */
export function lookupHolds(lookup: IndexLookup, records: readonly PublicRecord[]): boolean {
  const at = new Map<number, PublicRecord>();
  for (const r of records) {
    const e = entryOfRecord(r);
    if (e?.log === lookup.log) at.set(e.entry, r);
  }
  if (at.size === 0) return false;
  const listed = new Set(lookup.indices);
  if (!lookup.indices.every((i) => at.has(i))) return false;
  for (const [entry, r] of at)
    if (entry < lookup.revision.log_size && !listed.has(entry) && recordIndexKeys(r).includes(lookup.key))
      return false;
  return true;
}
