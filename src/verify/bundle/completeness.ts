import type { EvidenceBundle } from "../../formats/bundle/format.js";
import { leafIndexOfMmrIndex } from "../../formats/mmr/index.js";
import { commitOf, logIndexOf } from "../../formats/record/api-record.js";
import { parseVkey } from "../../formats/tlog/keys.js";
import { type IndexLookup, LOOKUP_FORMAT } from "../../formats/vindex/lookup-format.js";
import { canonicalKey, recordIndexKeys } from "../../formats/vindex/map.js";
import type { TrustPolicy } from "../verdict/index.js";
import { type LookupProven, verifyLookup } from "../vindex/lookup.js";
import type { BundleFailureCode, Findings } from "./failures.js";
import { type CheckedCheckpoint, tieToCheckpoint } from "./logs.js";
import type { CheckedRecord } from "./records.js";
import type { Completeness, ProvenLog } from "./report.js";

// Whether a bundle holds every record of its subject: each index lookup it carries verified under
// the log's key and tied to the log's bundled checkpoint, then held against the bundled records
// entry by entry (docs/evidence-bundle.md, "Complete as of a log size").

/** What a bundle without a proven lookup cannot show, in `not_checked`. */
const NOT_PROVEN_COMPLETE =
  "completeness: the bundle proves the records it holds are in the log; nothing proves the log holds no other record of this subject (records may have been left out)";

/** What the completeness step reads besides the lookups: the bundle, its checked records and checkpoints. */
interface Context {
  readonly bundle: EvidenceBundle;
  readonly checked: CheckedRecord[];
  readonly checkpoints: Map<string, CheckedCheckpoint>;
  readonly policy: TrustPolicy;
  readonly found: Findings;
  readonly notChecked: string[];
  /** The subject's key in its one spelling, undefined when the subject is of no key. */
  readonly key: string | undefined;
}

/** A bundled record at a log entry: the keys the map function files it under, and whether a receipt proved the entry. */
interface Filed {
  identity: string;
  keys: string[];
  proven: boolean;
}

const tenantLog = (v: unknown) => (typeof v === "string" && v ? `tenant/${v.replace(/^tenant\//, "")}` : "");

/**
 * The entry a record without a valid receipt says it is at (its commit's MMR index, unsigned):
 * only so that a listed entry it holds is not also called missing, the record itself having
 * already failed as unproven.
 */
function claimedEntry(record: Record<string, unknown>, log: string): number[] {
  if (tenantLog(record.tenant_identity ?? record.origin_tenant) !== log) return [];
  const index = logIndexOf(commitOf(record)?.index);
  try {
    return index === undefined ? [] : [leafIndexOfMmrIndex(index)];
  } catch {
    return [];
  }
}

/** The bundle's records of one log by the entry they are at. */
function recordsByEntry(ctx: Context, log: string): Map<number, Filed> {
  const out = new Map<number, Filed>();
  ctx.bundle.records.forEach(({ record }, i) => {
    const proven = (ctx.checked[i]?.entries ?? []).filter((e) => e.log === log).map((e) => e.entry);
    const at = proven.length > 0 ? proven : claimedEntry(record, log);
    const filed = {
      identity: String(record.identity ?? `record ${i + 1}`),
      keys: recordIndexKeys(record),
      proven: proven.length > 0,
    };
    for (const e of at) if (!out.get(e)?.proven) out.set(e, filed);
  });
  return out;
}

const nameOf = (vkey: string): string | undefined => {
  try {
    return parseVkey(vkey).name;
  } catch {
    return undefined;
  }
};

type Checked = { ok: true; v: LookupProven; pinned: boolean } | { ok: false; reason: string };

/**
 * A lookup verified under the log's key: a key you pinned for the checkpoint's origin when there
 * is one (a lookup that holds only under the bundle's own key is then a policy failure, one
 * under neither a tampering), else the key the bundle carries for the log.
 */
function underLogKey(ctx: Context, lookup: IndexLookup, cp: CheckedCheckpoint): Checked {
  const at = `the index lookup of ${lookup.log}`;
  const carried = ctx.bundle.logs.find((l) => l.log === lookup.log)?.checkpoints?.[0]?.key;
  const origin = cp.judged.checkpoint.origin;
  const pinned = ctx.policy.logKeys.filter((k) => nameOf(k) === origin);
  let refusal: string | undefined;
  for (const k of pinned) {
    const v = verifyLookup(lookup, k);
    if (v.ok) return { ok: true, v, pinned: true };
    refusal ??= v.reason;
  }
  if (pinned.length > 0 && carried !== undefined && verifyLookup(lookup, carried).ok) {
    const reason = `${at} is not signed by a log key you pinned (origin ${origin})`;
    ctx.found.policy("INDEX_NOT_PINNED", reason);
    return { ok: false, reason };
  }
  if (pinned.length === 0) {
    if (carried === undefined)
      return { ok: false, reason: `log ${lookup.log} carries no key to check ${at} with` };
    const v = verifyLookup(lookup, carried);
    if (v.ok) return { ok: true, v, pinned: false };
    refusal = v.reason;
  }
  const reason = `${at} does not verify: ${refusal}`;
  ctx.found.tampered("INDEX_PROOF_INVALID", reason);
  return { ok: false, reason };
}

/**
 * Each listed entry a bundled record filed under the key; each such record below the log size
 * listed. The first contradiction found, if any (each is a tampering of its own).
 */
function contradiction(ctx: Context, v: LookupProven): string | undefined {
  const byEntry = recordsByEntry(ctx, v.log);
  const found: string[] = [];
  for (const e of v.indices) {
    const rec = byEntry.get(e);
    if (!rec)
      found.push(
        tampered(
          ctx,
          "INDEX_ENTRY_OMITTED",
          `log entry ${e} of ${v.log} is filed under ${v.key} and is not in the bundle`,
        ),
      );
    else if (!rec.keys.includes(v.key))
      found.push(
        tampered(
          ctx,
          "INDEX_ENTRY_MISMATCH",
          `log entry ${e} of ${v.log} is listed under ${v.key}, but the bundled record at it, ${rec.identity}, is not filed under it`,
        ),
      );
  }
  const listed = new Set(v.indices);
  for (const [e, rec] of byEntry)
    if (rec.proven && e < v.logSize && rec.keys.includes(v.key) && !listed.has(e))
      found.push(
        tampered(
          ctx,
          "INDEX_OMITS_RECORD",
          `${rec.identity} (log entry ${e} of ${v.log}) is of ${v.key} and among the ${v.logSize} log entries the index lookup covers, but it does not list it`,
        ),
      );
  return found[0];
}

/** Records a tampering and gives its words back, for the completeness's reason. */
function tampered(ctx: Context, code: BundleFailureCode, detail: string): string {
  ctx.found.tampered(code, detail);
  return detail;
}

/** One lookup: of the subject and a log of the bundle, verified, tied to the log's checkpoint, held against the records. */
function checkLookup(ctx: Context, lookup: IndexLookup): ProvenLog | string {
  const at = `the index lookup of ${lookup.log}`;
  if (lookup.format !== LOOKUP_FORMAT || lookup.version !== 1) {
    ctx.notChecked.push(
      `${at}: ${String(lookup.format)} version ${String(lookup.version)} (unknown to this verifier)`,
    );
    return `${at} is of a format this verifier does not know`;
  }
  if (!ctx.bundle.logs.some((l) => l.log === lookup.log)) {
    const reason = `${at}: the bundle holds no log ${lookup.log}`;
    ctx.found.tampered("INDEX_OF_OTHER_LOG", reason);
    return reason;
  }
  if (ctx.key === undefined || lookup.key !== ctx.key) {
    const reason = `${at} is of ${lookup.key}, not of the bundle's subject ${ctx.bundle.subject.id}`;
    ctx.found.tampered("INDEX_OF_OTHER_SUBJECT", reason);
    return reason;
  }
  const cp = ctx.checkpoints.get(lookup.log);
  if (!cp) return `log ${lookup.log} carries no checkpoint that verified, to tie ${at} to`;
  const checked = underLogKey(ctx, lookup, cp);
  if (!checked.ok) return checked.reason;
  const { v } = checked;
  // Any log extends the empty one; any other size must be the bundled checkpoint's log.
  if (v.logSize > 0 && !tieToCheckpoint(v.logSize, v.logRoot, 0, cp).ok) {
    const reason = `${at}: its log of ${v.logSize} entries is not consistent with the bundled checkpoint of ${cp.judged.checkpoint.size} entries`;
    ctx.found.tampered("INDEX_PROOF_INVALID", reason);
    return reason;
  }
  const contradicted = contradiction(ctx, v);
  if (contradicted !== undefined) return contradicted;
  return {
    log: v.log,
    log_size: v.logSize,
    revision: v.revision,
    entries: v.indices.length,
    log_key_pinned: checked.pinned,
  };
}

/** "complete as of N log entries of <log>", or "not proven complete: <why>": the verdict's words for it. */
function completenessWords(c: {
  complete: boolean;
  reason?: string;
  pinned?: boolean;
  logs: ProvenLog[];
}): string {
  if (!c.complete) return `not proven complete: ${c.reason}`;
  const sizes = c.logs.map((l) => `${l.log_size} log entries of ${l.log}`).join(" and ");
  return `complete as of ${sizes}${c.pinned ? "" : " (under the log key the bundle carries, not one you pinned)"}`;
}

const notProven = (reason: string, logs: ProvenLog[]): Completeness => ({
  complete: false,
  reason,
  logs,
  detail: completenessWords({ complete: false, reason, logs }),
});

/** The completeness the lookups prove: every log with a proven record of the subject covered, or why not. */
function completenessOf(ctx: Context): Completeness {
  const lookups = ctx.bundle.index ?? [];
  if (lookups.length === 0) return notProven("the bundle carries no index lookup", []);
  const logs: ProvenLog[] = [];
  const reasons: string[] = [];
  for (const lookup of lookups) {
    const r = checkLookup(ctx, lookup);
    if (typeof r === "string") reasons.push(r);
    else logs.push(r);
  }
  if (reasons.length > 0) return notProven(reasons[0] as string, logs);
  const covered = new Set(logs.map((l) => l.log));
  const uncovered = [...new Set(ctx.checked.flatMap((c) => c.entries.map((e) => e.log)))].filter(
    (l) => !covered.has(l),
  );
  if (uncovered.length > 0)
    return notProven(`no index lookup covers the records of ${uncovered.join(", ")}`, logs);
  const pinned = logs.every((l) => l.log_key_pinned);
  return {
    complete: true,
    key: ctx.key as string,
    pinned,
    logs,
    detail: completenessWords({ complete: true, pinned, logs }),
  };
}

/**
 * Step 9: the bundle's completeness from its index lookups, what it leaves unchecked, and the
 * policy's `require complete`. A lookup that contradicts the bundle (an entry it lacks, a
 * record it holds and the list does not) is a tampering; a bundle without one is only not
 * proven complete.
 */
export function checkCompleteness(
  bundle: EvidenceBundle,
  checked: CheckedRecord[],
  checkpoints: Map<string, CheckedCheckpoint>,
  policy: TrustPolicy,
  found: Findings,
  notChecked: string[],
): Completeness {
  const key = canonicalKey(bundle.subject.id);
  const c = completenessOf({ bundle, checked, checkpoints, policy, found, notChecked, key });
  if (!c.complete) notChecked.unshift(NOT_PROVEN_COMPLETE);
  else {
    for (const l of c.logs)
      notChecked.unshift(
        `completeness past the first ${l.log_size} entries of ${l.log}: the index lookup covers those; a record of ${c.key} after them, left out, would not be flagged`,
      );
    if (!c.pinned)
      notChecked.push(
        "completeness under your roots: the index lookup verified only under the log key the bundle carries; pin the log's key (--log-key, a policy's log line) to rely on it",
      );
  }
  if (policy.requireComplete && !(c.complete && c.pinned))
    found.policy(
      "NOT_PROVEN_COMPLETE",
      c.complete
        ? "require complete: the bundle is proven complete only under the log key it carries, not one you pinned"
        : `require complete: the bundle is ${c.detail}`,
    );
  return c;
}
