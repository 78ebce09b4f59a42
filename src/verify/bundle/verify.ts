import { CodedError } from "../../formats/coded-error.js";
import { decodeSeal, verifySeal } from "../../formats/cose/index.js";
import { type PublicKey, type PublicKeyFactory, publicKeyFromJwk } from "../../formats/crypto/public-key.js";
import { entryWords, leafIndexOfMmrIndex, verifyConsistency } from "../../formats/mmr/index.js";
import { signedAttributes } from "../../formats/record/api-record.js";
import { type AttributeStanding, erasableStandings, erasedWords } from "../../formats/record/erasable.js";
import { verifyConsistency as verifyTreeConsistency } from "../../formats/rfc9162/index.js";
import { canonicalSubject } from "../../formats/vcon/subject.js";
import { keysFromKeySet, verifyRecordReceipt } from "../receipts/index.js";
import {
  type CheckpointJudgement,
  coseKeyFingerprints,
  judge,
  judgeCheckpoint,
  type KeyFingerprint,
  keyFingerprint,
  logKeyFingerprint,
  noTrust,
  pinsSomething,
  type TrustLevel,
  type TrustRoots,
  trustAtLeast,
  unsignedFields,
  type VerificationVerdict,
} from "../verdict/index.js";
import {
  BUNDLE_FORMAT,
  BUNDLE_VERSION,
  type BundleCheckpoint,
  type BundleLog,
  type BundleReceipt,
  type EvidenceBundle,
} from "./format.js";

interface ReceiptCheck {
  profile: string;
  ok: boolean;
  detail: string;
  /** Why it failed (a failed receipt only). */
  failure?: BundleFailureCode;
  /** The issuer the receipt's signed headers name (a valid receipt only). */
  issuer?: string;
}

/** The check of one record: each receipt's outcome, whether one known receipt proved it, and how far. */
interface RecordCheck {
  identity: string;
  ok: boolean;
  /** How far this record's inclusion is anchored outside the bundle. */
  trust: TrustLevel;
  /** The record's `confirmation_status` as the service stated it: no signature covers it. */
  claimed_confirmation_status: string;
  receipts: ReceiptCheck[];
  /**
   * Its erasable attributes (committed by a salted hash): each disclosed value checked against
   * its commitment, each erased one as the service says (by whom, when, under which basis, and
   * the erasure's own record). Absent when it commits none.
   */
  erasable?: Array<{ attribute: string; state: "disclosed" | "erased" | "withheld"; detail: string }>;
}

interface LogCheck {
  log: string;
  profile: string;
  ok: boolean;
  latest_size: number;
  /** The latest seal's time, RFC 3339 (signed, in the seal). */
  latest_time: string;
  seals: number;
  detail: string;
  /** The log's checkpoint as judged against the caller's roots, when the bundle carries one. */
  checkpoint?: {
    size: number;
    pinned: boolean;
    witnessed: boolean;
    cosigners: string[];
    cosignature_lines: number;
  };
}

/**
 * Every way a bundle's check fails, one closed set: the step that finds it names it. A tampering
 * (the evidence contradicts itself) or a policy failure (it holds, but not to the caller's roots
 * or requirements); `BundleFailure.kind` says which.
 *
 * @example
 * ```ts
 * const seen = new Set(verifyBundle(bundle, roots).failures.map((f) => f.code));
 * if (seen.has("SEAL_UNSIGNED")) console.error("a seal's signature does not verify");
 * ```
 */
export const BUNDLE_FAILURES = [
  // checkLogs: each seal signed, of its log, and consistent with the latest.
  "SEAL_MALFORMED",
  "SEAL_UNSIGNED",
  "SEAL_SIZE_MISMATCH",
  "SEAL_OF_OTHER_LOG",
  "NO_SEAL",
  "CONSISTENCY_PROOF_MISSING",
  "SEALS_INCONSISTENT",
  // judgeCheckpoints: a bundled checkpoint against the caller's log keys and witnesses.
  "CHECKPOINT_REFUSED",
  "CHECKPOINT_POLICY",
  // checkRecords: each receipt of each record.
  "RECEIPT_INVALID",
  "RECEIPT_OF_OTHER_LOG",
  "RECEIPT_PROFILE_MISMATCH",
  "RECEIPT_NO_TREE_SIZE",
  "RECEIPT_TREE_INCONSISTENT",
  "RECEIPT_LOG_UNVERIFIED",
  "RECEIPT_PEAK_NOT_SEALED",
  "NO_RECEIPT",
  // recordVerdicts: what the signed records say against the bundle.
  "RECORD_OF_OTHER_SUBJECT",
  "ERASABLE_MISMATCH",
  // serviceOf: the receipts' issuer against the bundle's fields.
  "ISSUERS_DIFFER",
  "SERVICE_MISMATCH",
  "ASSET_UNRELATED",
  // pinning and requirements: the caller's roots and policy.
  "SEALS_NOT_PINNED",
  "RECEIPTS_NOT_PINNED",
  "TOO_FEW_RECEIPTS",
  "ISSUER_NOT_ACCEPTED",
  "SEAL_TOO_OLD",
  "NOT_WITNESSED",
  "NOT_PINNED",
] as const;
/**
 * @example
 * ```ts
 * const tampered = (r: BundleReport): BundleFailureCode[] => r.failures.filter((f) => f.kind === "tampered").map((f) => f.code);
 * ```
 */
export type BundleFailureCode = (typeof BUNDLE_FAILURES)[number];

/** One failure the check found: its code, what it is about, and the words the verdict shows. */
export interface BundleFailure {
  code: BundleFailureCode;
  kind: "tampered" | "policy";
  /** The verdict's line for it (the verdict's `reasons` hold the same words). */
  detail: string;
}

/** The verdict on a bundle: the shared verdict object, with what each record and log showed. */
export interface BundleReport extends VerificationVerdict {
  /** Each failure with its code, in the order the steps found them. */
  failures: BundleFailure[];
  /** The subject every record was checked to be of. */
  subject: string;
  /** The receipts' issuer (signed); the bundle's `service` field must name it. */
  service: string;
  /** When the bundle says it was exported (unsigned). */
  created_at: string;
  records: RecordCheck[];
  logs: LogCheck[];
}

// Plain Uint8Array and atob: the verifier runs in browsers as it is.
function bytes(b64: string): Uint8Array {
  let bin: string;
  try {
    bin = atob(b64.replace(/\s+/g, ""));
  } catch {
    throw new BundleError("a value that should be base64 is not");
  }
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
function unhex(h: string): Uint8Array {
  if (!/^([0-9a-f]{2})*$/i.test(h)) throw new BundleError("a value that should be hex is not");
  return Uint8Array.from(h.match(/../g) ?? [], (x) => Number.parseInt(x, 16));
}

/**
 * @example
 * ```ts
 * try { parseBundle(text); } catch (e) { if (e instanceof BundleError) console.error(e.code, e.message); }
 * ```
 */
class BundleError extends CodedError<"BUNDLE_MALFORMED"> {
  readonly code = "BUNDLE_MALFORMED";
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const objects = (v: unknown): v is Array<Record<string, unknown>> => Array.isArray(v) && v.every(isObject);
const strings = (v: unknown): boolean => Array.isArray(v) && v.every((s) => typeof s === "string");

/**
 * What in a bundle is not of the shape the checks read (so a hostile file is refused by name,
 * not by a TypeError halfway through), or undefined. Logs of a profile this verifier does not
 * know are only named, never read.
 */
function malformedPart(o: Partial<EvidenceBundle>): string | undefined {
  if (!isObject(o.subject) || typeof o.subject.id !== "string") return "the bundle names no subject";
  for (const [i, r] of (o.records ?? []).entries())
    if (!isObject(r) || !isObject(r.record) || !objects(r.receipts))
      return `record ${i + 1} lacks its record or its list of receipts`;
  for (const [i, l] of (o.logs ?? []).entries()) {
    if (!isObject(l) || typeof l.log !== "string" || typeof l.profile !== "string")
      return `log ${i + 1} lacks its name or profile`;
    if (l.profile !== "mmr") continue;
    if (!objects(l.seals) || !objects(l.consistency))
      return `log ${l.log} lacks its seals or consistency proofs`;
    const checkpoints = (l as { checkpoints?: unknown }).checkpoints;
    if (
      checkpoints !== undefined &&
      !(
        objects(checkpoints) &&
        checkpoints.every(
          (c) =>
            c.consistency === undefined ||
            (objects(c.consistency) && c.consistency.every((p) => strings(p.proof))),
        )
      )
    )
      return `log ${l.log}: its checkpoints are malformed`;
  }
  return undefined;
}

/**
 * Reads a bundle's JSON text, refusing anything that is not this format's known major version.
 *
 * @example
 * ```ts
 * const bundle = parseBundle(await readFile("evidence.json", "utf8")); // throws BundleError
 * ```
 */
export function parseBundle(text: string): EvidenceBundle {
  let b: unknown;
  try {
    b = JSON.parse(text);
  } catch {
    throw new BundleError("the file is not JSON, so it is not an evidence bundle");
  }
  const o = (b ?? {}) as Partial<EvidenceBundle>;
  if (o.format !== BUNDLE_FORMAT)
    throw new BundleError(`not an evidence bundle (format is not "${BUNDLE_FORMAT}")`);
  if (o.version !== BUNDLE_VERSION)
    throw new BundleError(
      `evidence bundle version ${String(o.version)} is not one this verifier reads (${BUNDLE_VERSION})`,
    );
  if (!Array.isArray(o.records) || !Array.isArray(o.logs) || typeof o.keys?.cose_key_set !== "string")
    throw new BundleError("the bundle lacks its records, logs or keys");
  const fault = malformedPart(o);
  if (fault) throw new BundleError(`the bundle is malformed: ${fault}`);
  return o as EvidenceBundle;
}

/** True when bytes look like an evidence bundle, for picking a check. */
export function looksLikeBundle(raw: Uint8Array): boolean {
  const head = new TextDecoder().decode(raw.slice(0, 200));
  return head.includes(`"${BUNDLE_FORMAT}"`);
}

type SealState = ReturnType<typeof decodeSeal>;

interface CheckedLog {
  check: LogCheck;
  seals: Map<number, SealState>;
  failure?: BundleFailureCode;
  /** The kid of the key that signed each seal, so pinning needs no second check of it. */
  signers: string[];
}

/** Checks one MMR log: every seal signed by one of `keys`, every older seal consistent with the latest. */
function checkLog(log: BundleLog, keys: Map<string, PublicKey>): CheckedLog {
  const seals = new Map<number, SealState>();
  const signers: string[] = [];
  const fail = (failure: BundleFailureCode, detail: string): CheckedLog => ({
    check: {
      log: log.log,
      profile: log.profile,
      ok: false,
      latest_size: 0,
      latest_time: "",
      seals: 0,
      detail,
    },
    seals: new Map<number, SealState>(),
    failure,
    signers: [],
  });
  for (const s of log.seals) {
    let raw: Uint8Array;
    let state: SealState;
    try {
      raw = bytes(s.seal);
      state = decodeSeal(raw);
    } catch (err) {
      return fail("SEAL_MALFORMED", `seal ${s.mmr_size} is malformed: ${(err as Error).message}`);
    }
    const signer = [...keys].find(([, k]) => verifySeal(raw, k));
    if (!signer) return fail("SEAL_UNSIGNED", `seal ${s.mmr_size} is not signed by the keys checked with`);
    if (state.mmrSize !== s.mmr_size)
      return fail("SEAL_SIZE_MISMATCH", `seal ${s.mmr_size} seals size ${state.mmrSize}`);
    if (`tenant/${state.logId}` !== log.log && state.logId !== log.log)
      return fail("SEAL_OF_OTHER_LOG", `seal ${s.mmr_size} is of log ${state.logId}, not ${log.log}`);
    seals.set(state.mmrSize, state);
    signers.push(signer[0]);
  }
  const latest = [...seals.values()].sort((a, b) => b.mmrSize - a.mmrSize)[0];
  if (!latest) return fail("NO_SEAL", "no seal");
  for (const state of seals.values()) {
    if (state === latest) continue;
    const proof = log.consistency.find((c) => c.from === state.mmrSize && c.to === latest.mmrSize);
    if (!proof)
      return fail(
        "CONSISTENCY_PROOF_MISSING",
        `no consistency proof from seal ${state.mmrSize} to the latest seal ${latest.mmrSize}`,
      );
    let ok = false;
    try {
      const paths = proof.paths.map((p) => p.map(unhex));
      ok = verifyConsistency(state.mmrSize, latest.mmrSize, state.peaks, latest.peaks, paths);
    } catch {
      ok = false;
    }
    if (!ok)
      return fail(
        "SEALS_INCONSISTENT",
        `seal ${state.mmrSize} is not consistent with the latest seal ${latest.mmrSize}`,
      );
  }
  return {
    check: {
      log: log.log,
      profile: log.profile,
      ok: true,
      latest_size: latest.mmrSize,
      latest_time: new Date(latest.timestampMs).toISOString(),
      seals: seals.size,
      detail: `${seals.size} seal(s), each signed and consistent with the latest (size ${latest.mmrSize})`,
    },
    seals,
    signers,
  };
}

/** A log's bundled checkpoint, judged, with the RFC 9162 consistency proofs the bundle carries for it. */
interface CheckedCheckpoint {
  judged: Extract<CheckpointJudgement, { ok: true }>;
  consistency: BundleCheckpoint["consistency"];
}

type TreeTie = { ok: boolean; detail: string };

/**
 * An RFC 9162 receipt's tree tied to the log's checkpoint: the same root at the same size, or
 * a consistency proof between the two sizes in either direction. The service publishes the
 * newest *witnessed* checkpoint while receipts cover the newest seal, so a receipt's tree may
 * be the larger one; then the record is within the checkpoint only if its leaf is below its size.
 */
function tieToCheckpoint(treeSize: number, root: string, leafIndex: number, c: CheckedCheckpoint): TreeTie {
  const cp = c.judged.checkpoint;
  let tied = false;
  try {
    if (cp.size === treeSize) tied = hex(cp.root) === root;
    else if (treeSize < cp.size) {
      const proof = c.consistency.find((p) => p.from === treeSize && p.to === cp.size);
      tied =
        proof !== undefined &&
        verifyTreeConsistency(treeSize, cp.size, unhex(root), cp.root, proof.proof.map(unhex));
    } else {
      const proof = c.consistency.find((p) => p.from === cp.size && p.to === treeSize);
      tied =
        proof !== undefined &&
        verifyTreeConsistency(cp.size, treeSize, cp.root, unhex(root), proof.proof.map(unhex));
    }
  } catch {
    tied = false;
  }
  if (!tied)
    return {
      ok: false,
      detail: `the receipt's tree (size ${treeSize}) is not consistent with the bundled checkpoint (size ${cp.size})`,
    };
  const cosigned = c.judged.witnessed ? `, cosigned by ${c.judged.cosigners.join(", ")}` : "";
  if (leafIndex < cp.size) return { ok: true, detail: `within the checkpoint of size ${cp.size}${cosigned}` };
  return {
    ok: true,
    detail: `newer than the checkpoint of size ${cp.size}${cosigned}: the receipt's tree extends it, the record is not yet under it`,
  };
}

/** What the receipts of one record showed, checked once with the bundle's keys. */
interface CheckedRecord {
  ok: boolean;
  receipts: ReceiptCheck[];
  known: number;
  valid: number;
  ties: CheckedCheckpoint[];
  /** Whether every known receipt, and the seals each MMR receipt rests on, were signed by a pinned key. */
  pinned: boolean;
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

/** Every receipt of every record checked with the bundle's keys; `pinned` says which signer counts as pinned. */
function checkRecords(
  bundle: EvidenceBundle,
  keyMap: Map<string, PublicKey>,
  logs: Map<string, CheckedLog>,
  checkpoints: Map<string, CheckedCheckpoint>,
  pinned: (kid: string) => boolean,
  unknown: string[],
): CheckedRecord[] {
  const noting = notingKeys(keyMap);
  const logPinned = (name: string) => (logs.get(name)?.signers ?? []).every(pinned);
  return bundle.records.map(({ record, receipts }) => {
    const identity = String(record.identity ?? "");
    const ties: CheckedCheckpoint[] = [];
    let allPinned = true;
    const results = receipts.map((r: BundleReceipt): ReceiptCheck & { known: boolean } => {
      const fail = (failure: BundleFailureCode, detail: string) => ({
        profile: r.profile,
        ok: false,
        known: true,
        detail,
        failure,
      });
      if (r.profile !== "mmr" && r.profile !== "rfc9162") {
        unknown.push(`${identity}: a receipt of profile "${r.profile}"`);
        return { profile: r.profile, ok: false, known: false, detail: `profile "${r.profile}" not checked` };
      }
      let v: ReturnType<typeof verifyRecordReceipt>;
      try {
        v = verifyRecordReceipt(record, bytes(r.receipt), noting.keys);
      } catch (err) {
        v = { ok: false, reason: `receipt is malformed: ${(err as Error).message}` };
      }
      const signer = noting.signer();
      if (!v.ok) return fail("RECEIPT_INVALID", v.reason);
      if (!pinned(signer)) allPinned = false;
      if (v.subject !== r.log) return fail("RECEIPT_OF_OTHER_LOG", `the receipt is of log ${v.subject}`);
      if (v.profile !== r.profile)
        return fail(
          "RECEIPT_PROFILE_MISMATCH",
          `the receipt is of profile ${v.profile}, filed as ${r.profile}`,
        );
      const ok = (detail: string) => ({
        profile: r.profile,
        ok: true,
        known: true,
        detail,
        issuer: v.issuer,
      });
      if (r.profile === "rfc9162") {
        if (v.treeSize === undefined) return fail("RECEIPT_NO_TREE_SIZE", "the receipt names no tree size");
        const where = `leaf of the RFC 9162 tree of ${v.treeSize} entries of ${r.log}`;
        const cp = checkpoints.get(r.log);
        if (!cp) return ok(`${where} (no checkpoint in the bundle)`);
        const leafIndex = leafIndexOfMmrIndex(v.mmrIndex);
        const tie = tieToCheckpoint(v.treeSize, v.peak, leafIndex, cp);
        if (!tie.ok) return fail("RECEIPT_TREE_INCONSISTENT", tie.detail);
        if (leafIndex < cp.judged.checkpoint.size) ties.push(cp);
        return ok(`${where}, ${tie.detail}`);
      }
      const log = logs.get(r.log);
      if (!log?.check.ok) return fail("RECEIPT_LOG_UNVERIFIED", `its log ${r.log} did not verify`);
      if (!logPinned(r.log)) allPinned = false;
      const seal = r.mmr_size === undefined ? undefined : log.seals.get(r.mmr_size);
      if (!seal?.peaks.some((p) => hex(p) === v.peak))
        return fail(
          "RECEIPT_PEAK_NOT_SEALED",
          `the receipt's peak is not in the bundled seal ${String(r.mmr_size)}`,
        );
      return ok(`${entryWords(v.mmrIndex)} of ${r.log}, under seal ${seal.mmrSize}`);
    });
    const known = results.filter((r) => r.known);
    const ok = known.length > 0 && known.every((r) => r.ok);
    return {
      ok,
      receipts: results.map(({ known: _k, ...r }) => r),
      known: known.length,
      valid: known.filter((r) => r.ok).length,
      ties,
      pinned: ok && allPinned,
    };
  });
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

const COMPLETENESS =
  "completeness: the bundle proves the records it holds are in the log; nothing proves the log holds no other record of this subject (records may have been left out)";

/** The failures found so far, in the order found. */
class Findings {
  readonly all: BundleFailure[] = [];
  tampered(code: BundleFailureCode, detail: string): void {
    this.all.push({ code, kind: "tampered", detail });
  }
  policy(code: BundleFailureCode, detail: string): void {
    this.all.push({ code, kind: "policy", detail });
  }
  details(kind: BundleFailure["kind"]): string[] {
    return this.all.filter((f) => f.kind === kind).map((f) => f.detail);
  }
}

/** Step 1: the keys the bundle carries (they show only that it is self-consistent). */
function readCarriedKeys(bundle: EvidenceBundle, makeKey: PublicKeyFactory) {
  const keySet = bytes(bundle.keys.cose_key_set);
  try {
    return { keySet, carried: keysFromKeySet(keySet, makeKey) };
  } catch (err) {
    throw new BundleError(`the bundle's keys cannot be read: ${(err as Error).message}`);
  }
}

/**
 * Step 2: the keys the caller pinned (given by value, or the bundle's whose fingerprint the
 * policy names), their fingerprints, and whether a signer's kid is one of them with the same key.
 */
function pinKeys(trust: TrustRoots, keySet: Uint8Array, carried: Map<string, PublicKey>) {
  const policy = trust.policy;
  const byPrint = (kid: string, print: string) =>
    policy.serviceKeys.some((p) => p.kid === kid && p.fingerprint === print);
  const fingerprints: KeyFingerprint[] = coseKeyFingerprints(keySet, carried, (kid, print) =>
    trust.serviceKeys ? false : byPrint(kid, print),
  );
  let pinnedKeys: Map<string, PublicKey> | undefined;
  if (trust.serviceKeys) {
    pinnedKeys = trust.serviceKeys;
    for (const [kid, key] of trust.serviceKeys) {
      const [pinned] = coseKeyFingerprints(new Uint8Array(), new Map([[kid, key]]), () => true).slice(1);
      if (!pinned) continue;
      // The bundle's own key of that kid, the very key pinned: one line, marked pinned, not two.
      const same = fingerprints.find(
        (f) => f.kind === "cose-key" && f.id === kid && f.fingerprint === pinned.fingerprint,
      );
      if (same) same.pinned = true;
      else fingerprints.push(pinned);
    }
  } else if (policy.serviceKeys.length > 0) {
    pinnedKeys = new Map(
      [...carried].filter(([kid]) =>
        fingerprints.some((f) => f.kind === "cose-key" && f.id === kid && f.pinned),
      ),
    );
  }
  // A signature the bundle's key of that kid verified is the pinned key's when the keys are one.
  const isPinned = (kid: string) => {
    const pin = pinnedKeys?.get(kid);
    const own = carried.get(kid);
    return (
      pin !== undefined && own !== undefined && (pin === own || keyFingerprint(pin) === keyFingerprint(own))
    );
  };
  return { fingerprints, pinning: pinnedKeys !== undefined, isPinned };
}

/** Step 3: each log's bundled checkpoint, judged against the caller's log keys and witnesses. */
function judgeCheckpoints(
  bundle: EvidenceBundle,
  trust: TrustRoots,
  fingerprints: KeyFingerprint[],
  found: Findings,
) {
  const policy = trust.policy;
  const checkpoints = new Map<string, CheckedCheckpoint>();
  const refused = new Map<string, string>();
  for (const log of bundle.logs) {
    const cp = log.profile === "mmr" ? log.checkpoints?.[0] : undefined;
    if (!cp) continue;
    const j = judgeCheckpoint(cp.note, cp.key, policy);
    fingerprints.push(
      logKeyFingerprint(cp.key, j.ok && policy.logKeys.some((k) => k.trim() === cp.key.trim())),
    );
    if (!j.ok) {
      refused.set(log.log, j.reason);
      continue;
    }
    checkpoints.set(log.log, { judged: j, consistency: cp.consistency ?? [] });
    if (j.policy && (policy.logKeys.length > 0 || policy.witnesses.size > 0))
      found.policy("CHECKPOINT_POLICY", `log ${log.log}: ${j.policy}`);
  }
  return { checkpoints, refused };
}

/** Step 4: each MMR log's seals, checked once with the bundle's keys. */
function checkLogs(bundle: EvidenceBundle, carried: Map<string, PublicKey>, unknown: string[]) {
  const logs = new Map<string, CheckedLog>();
  for (const log of bundle.logs) {
    if (log.profile !== "mmr") {
      unknown.push(`log ${log.log}: profile "${log.profile}"`);
      continue;
    }
    logs.set(log.log, checkLog(log, carried));
  }
  return logs;
}

/** Step 6: each log's verdict, with its checkpoint's judgement; a refusal or a failed seal is a tampering. */
function logVerdicts(
  logs: Map<string, CheckedLog>,
  judged: ReturnType<typeof judgeCheckpoints>,
  pins: ReturnType<typeof pinKeys>,
  found: Findings,
): LogCheck[] {
  return [...logs.entries()].map(([name, { check, failure, signers }]) => {
    const j = judged.checkpoints.get(name)?.judged;
    const bad = judged.refused.get(name);
    if (bad) found.tampered("CHECKPOINT_REFUSED", `log ${name}: ${bad}`);
    else if (!check.ok) found.tampered(failure ?? "NO_SEAL", `log ${name}: ${check.detail}`);
    else if (pins.pinning && !signers.every(pins.isPinned))
      found.policy("SEALS_NOT_PINNED", `log ${name}: its seals are not signed by a key you pinned`);
    return {
      ...check,
      ...(bad ? { ok: false, detail: bad } : {}),
      ...(j
        ? {
            checkpoint: {
              size: j.checkpoint.size,
              pinned: j.pinned,
              witnessed: j.witnessed,
              cosigners: j.cosigners,
              cosignature_lines: j.lines,
            },
          }
        : {}),
    };
  });
}

/** Step 7: each record's verdict: its receipts, its subject, its erasable attributes, how far it is trusted. */
function recordVerdicts(
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
      const bad = p.receipts.find((r) => !r.ok);
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
      ...(standings.length ? { erasable: standings.flatMap(erasableCheck) } : {}),
    };
  });
  for (const [field, n] of unsignedCount)
    unsigned.push(
      `records[].${field} (${n} record(s)): ${field === "confirmation_status" ? "the service's claim of its trust level" : "not part of the signed leaf"}`,
    );
  return { records, issuers };
}

/** Step 8: the service, the receipts' signed issuer, which the bundle's fields must agree with. */
function serviceOf(bundle: EvidenceBundle, issuers: Set<string>, found: Findings): string {
  const service = [...issuers][0] ?? "";
  if (issuers.size > 1)
    found.tampered("ISSUERS_DIFFER", `the receipts name more than one issuer: ${[...issuers].join(", ")}`);
  else if (service && bundle.service !== service)
    found.tampered(
      "SERVICE_MISMATCH",
      `the bundle says it is from ${bundle.service}, its receipts were issued by ${service}`,
    );
  for (const a of bundle.assets ?? []) {
    const id = String(a.identity ?? "");
    if (!bundle.records.some(({ record }) => String(record.identity ?? "").startsWith(`${id}/events/`)))
      found.tampered(
        "ASSET_UNRELATED",
        `assets[]: ${id || "an asset without identity"} is not the asset of any bundled record`,
      );
  }
  return service;
}

/** Step 9: the relying party's requirements: issuers, the seals' age, and the trust each record needs. */
function requirements(
  trust: TrustRoots,
  service: string,
  logs: LogCheck[],
  records: RecordCheck[],
  now: Date,
  found: Findings,
  notChecked: string[],
) {
  const policy = trust.policy;
  if (policy.issuers.length > 0 && service && !policy.issuers.includes(service))
    found.policy("ISSUER_NOT_ACCEPTED", `the receipts' issuer ${service} is not one the policy accepts`);
  if (policy.maxAgeSeconds !== undefined)
    for (const l of logs) {
      const age = (now.getTime() - Date.parse(l.latest_time)) / 1000;
      if (l.ok && !(age <= policy.maxAgeSeconds))
        found.policy(
          "SEAL_TOO_OLD",
          `log ${l.log}: its latest seal (${l.latest_time}) is older than the policy's ${policy.maxAgeSeconds}s`,
        );
    }
  const pinned = pinsSomething(trust);
  const wantsWitness = policy.witnesses.size > 0 && policy.quorum !== "none";
  const minTrust: TrustLevel = policy.minTrust ?? (wantsWitness ? "witnessed" : "pinned");
  if (pinned)
    for (const r of records)
      if (r.ok && !trustAtLeast(r.trust, minTrust)) {
        if (minTrust === "witnessed")
          found.policy(
            "NOT_WITNESSED",
            `${r.identity}: not under a checkpoint cosigned by your witnesses' quorum`,
          );
        else found.policy("NOT_PINNED", `${r.identity}: not proven under any key you pinned`);
      }
  if (!wantsWitness)
    notChecked.push("witness cosignatures: you named no witness; cosignature lines are counted, not checked");
  return pinned;
}

/**
 * Verifies an evidence bundle offline. The bundle's own keys show only that it is
 * self-consistent (anyone can make such a bundle); trust comes from the caller's roots: the
 * service's COSE keys (`serviceKeys`, or pinned by fingerprint in the policy), the log's
 * checkpoint key and witnesses (C2SP tlog-policy), and the relying party's requirements.
 * Everything the verdict states is signed: each record's subject is checked against the
 * bundle's subject, the service against the receipts' issuer; the rest is labelled unsigned.
 * `makeKey` makes the bundle's keys: portable, unless a Node program passes node:crypto's.
 *
 * The check runs as named steps, each failure a code (`BUNDLE_FAILURES`); every signature is
 * verified once, with the bundle's keys, and a pinned key counts when it is the key that signed.
 *
 * @example
 * ```ts
 * const report = verifyBundle(parseBundle(text), { policy: parsePolicy(policyText), described: ["policy"] });
 * if (report.code !== "verified") console.error(report.summary, report.problems);
 * ```
 */
export function verifyBundle(
  bundle: EvidenceBundle,
  trust: TrustRoots = noTrust(),
  now = new Date(),
  makeKey: PublicKeyFactory = publicKeyFromJwk,
): BundleReport {
  const found = new Findings();
  const notChecked: string[] = [COMPLETENESS];
  const unsigned: string[] = [
    "created_at: when the bundle says it was exported",
    "assets[]: the asset records are context; no signature covers them",
  ];
  if (bundle.service_verdict !== undefined)
    unsigned.push(
      "service_verdict: the service's judgement of its own evidence when it exported it; this verdict is made anew and never reads it",
    );

  const { keySet, carried } = readCarriedKeys(bundle, makeKey);
  const pins = pinKeys(trust, keySet, carried);
  const judged = judgeCheckpoints(bundle, trust, pins.fingerprints, found);
  const unknown: string[] = [];
  const checkedLogs = checkLogs(bundle, carried, unknown);
  const checkedRecords = checkRecords(
    bundle,
    carried,
    checkedLogs,
    judged.checkpoints,
    pins.isPinned,
    unknown,
  );
  notChecked.push(...unknown.map((u) => `${u} (unknown to this verifier)`));
  for (const name of Object.keys(bundle.extensions ?? {}))
    notChecked.push(`extension "${name}" (unknown to this verifier)`);

  const logs = logVerdicts(checkedLogs, judged, pins, found);
  const { records, issuers } = recordVerdicts(bundle, checkedRecords, trust, pins.pinning, found, unsigned);
  const service = serviceOf(bundle, issuers, found);
  const pinned = requirements(trust, service, logs, records, now, found, notChecked);
  const level: TrustLevel =
    records.length && records.every((r) => r.trust === "witnessed") ? "witnessed" : "pinned";
  const subject = bundle.subject.id;
  return {
    ...judge({
      tampered: found.details("tampered"),
      policy: found.details("policy"),
      cannotEvaluate: records.length === 0 ? ["the bundle holds no records"] : [],
      pinned,
      level,
      roots: trust.described,
      fingerprints: pins.fingerprints,
      notChecked,
      unsigned,
      proven: `${records.length} record(s) of ${subject}, each in the log under a signed seal, every seal consistent with the latest`,
    }),
    failures: found.all,
    subject,
    service,
    created_at: bundle.created_at,
    records,
    logs,
  };
}

export { BundleError };
