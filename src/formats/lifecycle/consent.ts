/**
 * Consent as state derived from the log: for one vCon and one purpose, granted, revoked or never
 * asked, and the records that say so. Pure: it reads records as the API returns them (asset
 * events, asset-free events), from any service, and never the service's own tables.
 *
 * The rules (docs/vcon-lifecycle.md, §2), after the editor's copy's "Multi-purpose Consent" and
 * the consent draft's "most restrictive wins":
 * - a grant (`vcon_consent_accepted`) for a purpose makes it granted;
 * - a revocation (`vcon_consent_revoked`) for a purpose, or naming no purpose, makes it revoked;
 * - a review (`vcon_consent_reviewed`) is recorded and changes nothing;
 * - a grant that names no purpose grants none (it is reported as unscoped);
 * - the last grant or revocation, in the records' order, decides.
 */
import { idTimestampToMillis, parseIdTimestamp } from "../ledger/idtimestamp.js";
import { commitOf, kindOf, logIndexOf } from "../record/api-record.js";
import { type LifecycleRole, type RecordLifecycle, recordLifecycle } from "./vocabulary.js";

type ConsentState = "granted" | "revoked" | "never_asked";

/** What a record is to consent: a grant, a review or a revocation, for these purposes ([] = unscoped). */
export type ConsentRole = "grant" | "review" | "revocation";

const ROLE_OF: Partial<Record<LifecycleRole, ConsentRole>> = {
  "consent-grant": "grant",
  "consent-review": "review",
  "consent-revocation": "revocation",
};

/** A record read for the lifecycle, with the position the derivations order it by. */
export interface LifecycleRecord {
  record: Record<string, unknown>;
  identity: string;
  /**
   * The tenancy whose log holds it (`tenant/<uuid>`): an asset event's `tenant_identity`, signed
   * in its leaf; an asset-free event's `origin_tenant`, the log its receipt proves it in.
   */
  tenant: string;
  lifecycle: RecordLifecycle;
  /** When the service accepted it (ms since the epoch; NaN when the record does not say). */
  acceptedMs: number;
  /** Its position in its log (MAX_SAFE_INTEGER while not committed). */
  logIndex: number;
}

const text = (v: unknown) => (typeof v === "string" ? v : "");

/** The tenancy a record is of (`tenant/<uuid>`), "" when it names none. */
function tenantOf(r: Record<string, unknown>): string {
  return text(r.tenant_identity) || text(r.origin_tenant);
}

/**
 * The tenancy whose records decide a vCon's consent: the one named (the tenancy asking, or the
 * one a bundle was exported for), else the tenancy of the first record read. Consent is the
 * holder's to give: a tenancy that shares its records with another (OBAC) must not grant, for
 * the other's vCon, what the other revoked.
 */
export function consentHolder(ordered: readonly LifecycleRecord[], named?: string): string {
  return named || (ordered[0]?.tenant ?? "");
}

/** Where the log placed a record; one not committed yet sorts last. */
function logIndexOfRecord(r: Record<string, unknown>): number {
  const commit = commitOf(r);
  return (commit && logIndexOf(commit.index)) ?? Number.MAX_SAFE_INTEGER;
}

/** The milliseconds an idtimestamp's (hashed) id holds, in the epoch-1 layout the service makes. */
function idTimestampMs(r: Record<string, unknown>): number {
  try {
    return idTimestampToMillis(parseIdTimestamp(commitOf(r)?.idtimestamp ?? "").id);
  } catch {
    return Number.NaN;
  }
}

/**
 * When the service accepted a record, read from what its leaf signs: an asset event's
 * `timestamp_accepted`; an asset-free event's idtimestamp (when its log committed it, just after
 * it was accepted), since its `created_at`, like any field its leaf does not hash, could be set to
 * move a revocation after the processing it forbade. A record of neither kind, which nothing
 * proves: its `timestamp_accepted`, else its `created_at`.
 */
function acceptedMsOf(r: Record<string, unknown>): number {
  const kind = kindOf(r);
  if (kind === "asset-event")
    return typeof r.timestamp_accepted === "string" ? Date.parse(r.timestamp_accepted) : Number.NaN;
  if (kind === "asset-free-event") return idTimestampMs(r);
  if (typeof r.timestamp_accepted === "string") return Date.parse(r.timestamp_accepted);
  const created = Number(r.created_at);
  return Number.isFinite(created) && created > 0 ? created : Number.NaN;
}

/**
 * Records in the order the derivations read them: by the time the service accepted them, then
 * by their position in the log (a record not committed yet last), then as given. A record
 * accepted at no readable time sorts after the others.
 */
export function lifecycleOrder(records: ReadonlyArray<Record<string, unknown>>): LifecycleRecord[] {
  return records
    .map((record, i) => ({
      i,
      r: {
        record,
        identity: text(record.identity),
        tenant: tenantOf(record),
        lifecycle: recordLifecycle(record),
        acceptedMs: acceptedMsOf(record),
        logIndex: logIndexOfRecord(record),
      },
    }))
    .sort((a, b) => {
      const ta = Number.isNaN(a.r.acceptedMs) ? Number.POSITIVE_INFINITY : a.r.acceptedMs;
      const tb = Number.isNaN(b.r.acceptedMs) ? Number.POSITIVE_INFINITY : b.r.acceptedMs;
      return (ta === tb ? 0 : ta < tb ? -1 : 1) || a.r.logIndex - b.r.logIndex || a.i - b.i;
    })
    .map((x) => x.r);
}

/** A record's consent role, or undefined for any other record. */
export function consentRole(r: LifecycleRecord): ConsentRole | undefined {
  const m = r.lifecycle.meaning;
  return m.known ? ROLE_OF[m.operation.role] : undefined;
}

/** Whether a consent record concerns a purpose: it names it, or (a review or revocation) names none. */
function concerns(r: LifecycleRecord, role: ConsentRole, purpose: string): boolean {
  const purposes = r.lifecycle.purposes;
  return purposes.includes(purpose) || (purposes.length === 0 && role !== "grant");
}

/** The consent of one purpose: its state and the records that made it so. */
export interface PurposeConsent {
  purpose: string;
  state: ConsentState;
  /** The grant or revocation that decided the state (absent when never asked). */
  decided_by?: string;
  /** Every consent record that concerns the purpose, in order. */
  records: Array<{ identity: string; role: ConsentRole }>;
}

/**
 * The consent of `purpose` after the first `upTo` records of `ordered` (all of them by default),
 * read from the records of `tenant` alone when one is named: the state the derivation reads at
 * each processing event, and the answer of the consent route.
 */
export function consentOf(
  ordered: readonly LifecycleRecord[],
  purpose: string,
  upTo = ordered.length,
  tenant?: string,
): PurposeConsent {
  purpose = purpose.toLowerCase();
  const out: PurposeConsent = { purpose, state: "never_asked", records: [] };
  for (const r of ordered.slice(0, upTo)) {
    // Only the holding tenancy's own records decide (consentHolder).
    if (tenant !== undefined && r.tenant !== tenant) continue;
    const role = consentRole(r);
    if (!role || !concerns(r, role, purpose)) continue;
    out.records.push({ identity: r.identity, role });
    if (role === "review") continue;
    out.state = role === "grant" ? "granted" : "revoked";
    out.decided_by = r.identity;
  }
  return out;
}

/** Every purpose the records name in a consent record or a processing, sorted. */
export function purposesNamed(ordered: readonly LifecycleRecord[]): string[] {
  const all = new Set<string>();
  for (const r of ordered)
    if (consentRole(r) || (r.lifecycle.meaning.known && r.lifecycle.meaning.operation.perPurpose))
      for (const p of r.lifecycle.purposes) all.add(p);
  return [...all].sort();
}
