import {
  type BundleReceipt,
  type EvidenceBundle,
  STATEMENT_RECEIPT_PROFILE,
} from "../../formats/bundle/format.js";
import type { PublicKey } from "../../formats/crypto/public-key.js";
import { entryWords, leafIndexOfMmrIndex } from "../../formats/mmr/index.js";
import { signedAttributes } from "../../formats/record/api-record.js";
import { type AttributeStanding, erasableStandings, erasedWords } from "../../formats/record/erasable.js";
import { canonicalSubject } from "../../formats/vcon/subject.js";
import { verifyRecordReceipt } from "../receipts/index.js";
import { type TrustLevel, type TrustRoots, unsignedFields } from "../verdict/index.js";
import type { BundleFailureCode, Findings } from "./failures.js";
import { type CheckedCheckpoint, type CheckedLog, tieToCheckpoint } from "./logs.js";
import { bytes, hex } from "./parse.js";
import type { ReceiptCheck, RecordCheck } from "./report.js";
import { checkStatement, type StatementCheck } from "./statements.js";

// The records of a bundle: every receipt checked once with the bundle's keys, then each record's
// verdict (its subject, its erasable attributes, how far it is trusted).

/** What the receipts of one record showed, checked once with the bundle's keys. */
export interface CheckedRecord {
  ok: boolean;
  receipts: ReceiptCheck[];
  known: number;
  valid: number;
  ties: CheckedCheckpoint[];
  /** Whether every known receipt, and the seals each MMR receipt rests on, were signed by a pinned key. */
  pinned: boolean;
  /**
   * The log entries (RFC 9162 leaf indices, MMR leaf ordinals) its valid receipts place it at,
   * by log: what an index lookup's list is checked against.
   */
  entries: Array<{ log: string; entry: number }>;
  /** The statement a registered statement's record carries, held against the record. */
  statement: StatementCheck;
}

/**
 * The keys, each noting the kid of the one that verified a signature: the record verifier picks
 * a key by the receipt's kid, and this tells the caller which without verifying twice.
 */
function notingKeys(keys: Map<string, PublicKey>): { keys: Map<string, PublicKey>; signer: () => string } {
  let last = "";
  const noted = new Map<string, PublicKey>();
  for (const [kid, key] of keys)
    noted.set(kid, {
      jwk: key.jwk,
      verify: (hash, data, signature) => {
        const ok = key.verify(hash, data, signature);
        if (ok) last = kid;
        return ok;
      },
    });
  return {
    keys: noted,
    signer: () => {
      const kid = last;
      last = "";
      return kid;
    },
  };
}

/** What checking a record's receipts reads: the bundle's keys, its checked logs and checkpoints. */
interface ReceiptContext {
  readonly noting: ReturnType<typeof notingKeys>;
  readonly logs: Map<string, CheckedLog>;
  readonly checkpoints: Map<string, CheckedCheckpoint>;
  readonly pinned: (kid: string) => boolean;
  readonly unknown: string[];
}

/** What one record's receipts gathered as they were checked: the checkpoints they tie to, and pinning. */
interface RecordTally {
  readonly ties: CheckedCheckpoint[];
  readonly entries: Array<{ log: string; entry: number }>;
  allPinned: boolean;
}

type ReceiptResult = ReceiptCheck & { known: boolean };

/** Every receipt of every record checked with the bundle's keys; `pinned` says which signer counts as pinned. */
export function checkRecords(
  bundle: EvidenceBundle,
  keyMap: Map<string, PublicKey>,
  logs: Map<string, CheckedLog>,
  checkpoints: Map<string, CheckedCheckpoint>,
  pinned: (kid: string) => boolean,
  unknown: string[],
): CheckedRecord[] {
  const ctx: ReceiptContext = { noting: notingKeys(keyMap), logs, checkpoints, pinned, unknown };
  return bundle.records.map(({ record, receipts, statement: carried, statement_unavailable }) => {
    const tally: RecordTally = { ties: [], entries: [], allPinned: true };
    const statement = checkStatement(record, carried, statement_unavailable);
    const results = receipts.map((r) => checkReceipt(ctx, record, r, tally, statement));
    const known = results.filter((r) => r.known);
    const ok = known.length > 0 && known.every((r) => r.ok) && statement.ok;
    return {
      ok,
      receipts: results.map(({ known: _k, ...r }) => r),
      known: known.length,
      valid: known.filter((r) => r.ok).length,
      ties: tally.ties,
      pinned: ok && tally.allPinned,
      entries: tally.entries,
      statement,
    };
  });
}

/**
 * One receipt of a record: its signature with the bundle's keys (noting the signer, so pinning
 * needs no second verification), its log and profile as filed, then where it places the record.
 * A registered statement's RFC 9162 receipt is checked with the statement the record carries.
 */
function checkReceipt(
  ctx: ReceiptContext,
  record: Record<string, unknown>,
  r: BundleReceipt,
  tally: RecordTally,
  statement: StatementCheck,
): ReceiptResult {
  const identity = String(record.identity ?? "");
  const ofStatement = r.profile === STATEMENT_RECEIPT_PROFILE;
  if (r.profile !== "mmr" && r.profile !== "rfc9162" && !ofStatement) {
    ctx.unknown.push(`${identity}: a receipt of profile "${r.profile}"`);
    return { profile: r.profile, ok: false, known: false, detail: `profile "${r.profile}" not checked` };
  }
  let carried: Uint8Array | undefined;
  if (ofStatement) {
    if (!statement.ok) return failed(r, statement.failure, statement.detail);
    if (statement.unavailable !== undefined)
      return failed(r, "STATEMENT_MISSING", "a receipt of the statement the bundle says it does not carry");
    if (!statement.bytes)
      return failed(r, "RECEIPT_PROFILE_MISMATCH", "the record is not a registered statement");
    carried = statement.bytes;
  }
  let v: ReturnType<typeof verifyRecordReceipt>;
  try {
    v = verifyRecordReceipt(record, bytes(r.receipt), ctx.noting.keys, carried);
  } catch (err) {
    v = { ok: false, reason: `receipt is malformed: ${(err as Error).message}` };
  }
  const signer = ctx.noting.signer();
  if (!v.ok) return failed(r, "RECEIPT_INVALID", v.reason);
  if (!ctx.pinned(signer)) tally.allPinned = false;
  if (v.subject !== r.log) return failed(r, "RECEIPT_OF_OTHER_LOG", `the receipt is of log ${v.subject}`);
  // A registered statement's RFC 9162 receipt is of that profile, filed under its own name.
  if (v.profile !== (ofStatement ? "rfc9162" : r.profile))
    return failed(
      r,
      "RECEIPT_PROFILE_MISMATCH",
      `the receipt is of profile ${v.profile}, filed as ${r.profile}`,
    );
  return v.profile === "rfc9162" ? placeInTree(ctx, r, v, tally) : placeUnderSeal(ctx, r, v, tally);
}

type ValidReceipt = Extract<ReturnType<typeof verifyRecordReceipt>, { ok: true }>;

function failed(r: BundleReceipt, failure: BundleFailureCode, detail: string): ReceiptResult {
  return { profile: r.profile, ok: false, known: true, detail, failure };
}

function passed(r: BundleReceipt, v: ValidReceipt, detail: string): ReceiptResult {
  return { profile: r.profile, ok: true, known: true, detail, issuer: v.issuer };
}

/** An RFC 9162 receipt: its tree tied to the log's bundled checkpoint, when the bundle carries one. */
function placeInTree(
  ctx: ReceiptContext,
  r: BundleReceipt,
  v: ValidReceipt,
  tally: RecordTally,
): ReceiptResult {
  if (v.treeSize === undefined) return failed(r, "RECEIPT_NO_TREE_SIZE", "the receipt names no tree size");
  const where = `leaf of the RFC 9162 tree of ${v.treeSize} entries of ${r.log}`;
  const cp = ctx.checkpoints.get(r.log);
  if (!cp) {
    tally.entries.push({ log: r.log, entry: leafIndexOfMmrIndex(v.mmrIndex) });
    return passed(r, v, `${where} (no checkpoint in the bundle)`);
  }
  const leafIndex = leafIndexOfMmrIndex(v.mmrIndex);
  const tie = tieToCheckpoint(v.treeSize, v.peak, leafIndex, cp);
  if (!tie.ok) return failed(r, "RECEIPT_TREE_INCONSISTENT", tie.detail);
  if (leafIndex < cp.judged.checkpoint.size) tally.ties.push(cp);
  tally.entries.push({ log: r.log, entry: leafIndex });
  return passed(r, v, `${where}, ${tie.detail}`);
}

/** An MMR receipt: its peak among the peaks of a bundled seal of a log that verified. */
function placeUnderSeal(
  ctx: ReceiptContext,
  r: BundleReceipt,
  v: ValidReceipt,
  tally: RecordTally,
): ReceiptResult {
  const log = ctx.logs.get(r.log);
  if (!log?.check.ok) return failed(r, "RECEIPT_LOG_UNVERIFIED", `its log ${r.log} did not verify`);
  if (!log.signers.every(ctx.pinned)) tally.allPinned = false;
  const seal = r.mmr_size === undefined ? undefined : log.seals.get(r.mmr_size);
  if (!seal?.peaks.some((p) => hex(p) === v.peak))
    return failed(
      r,
      "RECEIPT_PEAK_NOT_SEALED",
      `the receipt's peak is not in the bundled seal of MMR size ${String(r.mmr_size)}`,
    );
  tally.entries.push({ log: r.log, entry: leafIndexOfMmrIndex(v.mmrIndex) });
  return passed(r, v, `${entryWords(v.mmrIndex)} of ${r.log}, under the seal of MMR size ${seal.mmrSize}`);
}

/** The subject a record is of: an asset event's asset, or the vCon an event's (signed) attributes name. */
function recordSubject(record: Record<string, unknown>, kind: "asset" | "vcon"): string {
  if (kind === "asset") return String(record.identity ?? "").replace(/\/events\/.*$/, "");
  const attrs = signedAttributes(record);
  return canonicalSubject(String(attrs?.subject ?? ""));
}

/** How a record's committed attribute shows in its check (a mismatch is already a tampering). */
function erasableCheck(
  st: AttributeStanding,
): Array<{ attribute: string; state: "disclosed" | "erased" | "withheld"; detail: string }> {
  const attribute = `${st.map}.${st.name}`;
  if (st.state === "mismatch") return [];
  if (st.state === "erased") return [{ attribute, state: "erased", detail: erasedWords(st) }];
  if (st.state === "withheld")
    return [{ attribute, state: "withheld", detail: `${attribute}: committed, its value not disclosed` }];
  return [{ attribute, state: "disclosed", detail: `${attribute}: disclosed, matches its commitment` }];
}

/** Step 7: each record's verdict: its receipts, its subject, its erasable attributes, how far it is trusted. */
export function recordVerdicts(
  bundle: EvidenceBundle,
  checked: CheckedRecord[],
  trust: TrustRoots,
  pinning: boolean,
  found: Findings,
  unsigned: string[],
) {
  const policy = trust.policy;
  const subject = bundle.subject.id;
  const issuers = new Set<string>();
  const unsignedCount = new Map<string, number>();
  const records: RecordCheck[] = bundle.records.map(({ record }, i) => {
    const identity = String(record.identity ?? "");
    const p = checked[i] as CheckedRecord;
    for (const f of unsignedFields(record)) unsignedCount.set(f, (unsignedCount.get(f) ?? 0) + 1);
    if (!p.ok) {
      // The statement first: without it a registered statement's tree receipt fails for its sake.
      const bad = p.statement.ok ? p.receipts.find((r) => !r.ok) : p.statement;
      found.tampered(
        bad?.failure ?? "NO_RECEIPT",
        `${identity || `record ${i + 1}`}: ${bad?.detail ?? "no receipt (not sealed when exported)"}`,
      );
    } else if (pinning && !p.pinned)
      found.policy("RECEIPTS_NOT_PINNED", `${identity}: its receipts are not signed by a key you pinned`);
    const of = recordSubject(record, bundle.subject.kind);
    if (of !== canonicalSubject(subject))
      found.tampered(
        "RECORD_OF_OTHER_SUBJECT",
        `${identity}: the record is of ${of || "no subject"}, not of the bundle's subject ${subject}`,
      );
    for (const r of p.receipts) if (r.ok && r.issuer !== undefined) issuers.add(r.issuer);
    // A disclosed value that does not hash to its (signed) commitment contradicts the record.
    const standings = erasableStandings(record);
    for (const st of standings)
      if (st.state === "mismatch") found.tampered("ERASABLE_MISMATCH", `${identity}: ${st.reason}`);
    let level: TrustLevel = "unpinned";
    if (p.ok && p.pinned) level = "pinned";
    if (p.ok && p.ties.some((t) => t.judged.pinned)) level = "pinned";
    if (p.ok && p.ties.some((t) => t.judged.witnessed)) level = "witnessed";
    if (p.ok && p.valid < policy.minReceipts)
      found.policy(
        "TOO_FEW_RECEIPTS",
        `${identity}: ${p.valid} valid receipt(s), the policy needs ${policy.minReceipts}`,
      );
    return {
      identity,
      ok: p.ok && of === canonicalSubject(subject),
      trust: level,
      claimed_confirmation_status: String(record.confirmation_status ?? ""),
      receipts: p.receipts,
      ...(p.statement.detail ? { statement: { ok: p.statement.ok, detail: p.statement.detail } } : {}),
      ...(standings.length ? { erasable: standings.flatMap(erasableCheck) } : {}),
    };
  });
  for (const [field, n] of unsignedCount)
    unsigned.push(
      `records[].${field} (${n} record(s)): ${field === "confirmation_status" ? "the service's claim of its trust level" : "not part of the signed leaf"}`,
    );
  return { records, issuers };
}

/**
 * What the records' statements leave unchecked: the issuers' signatures of the statements carried,
 * and, record by record, each statement the bundle says it could not carry.
 */
export function statementsNotChecked(bundle: EvidenceBundle, checked: CheckedRecord[]): string[] {
  const out: string[] = [];
  const carried = checked.filter((c) => c.statement.ok && c.statement.bytes).length;
  if (carried > 0)
    out.push(
      `the issuers' signatures of ${carried} registered statement(s): a record's MMR leaf holds its subject and issuer, and each statement is bound to its record by its digest, but a bundle carries no issuer's key`,
    );
  checked.forEach(({ statement: s }, i) => {
    if (s.ok && s.unavailable !== undefined)
      out.push(
        `${String(bundle.records[i]?.record.identity ?? `record ${i + 1}`)}: its registered statement, not in the bundle (the exporter: ${s.unavailable}); its content, its issuer's signature and its RFC 9162 leaf`,
      );
  });
  return out;
}
