import type { KeyObject } from "node:crypto";
import { CodedError } from "../api/coded-error.js";
import { decodeSeal, verifySeal } from "../cose/index.js";
import { verifyConsistency } from "../mmr/index.js";
import { verifyConsistency as verifyTreeConsistency } from "../rfc9162/index.js";
import { type Checkpoint, parseNote, verifyCheckpoint } from "../tlog/index.js";
import { keysFromKeySet, verifyRecordReceipt } from "../verify/index.js";
import {
  BUNDLE_FORMAT,
  BUNDLE_VERSION,
  type BundleCheckpoint,
  type BundleLog,
  type BundleReceipt,
  type EvidenceBundle,
} from "./format.js";

/** The check of one record: each receipt's outcome, and whether one known receipt proved it. */
interface RecordCheck {
  identity: string;
  confirmation_status: string;
  ok: boolean;
  receipts: Array<{ profile: string; ok: boolean; detail: string }>;
}

interface LogCheck {
  log: string;
  profile: string;
  ok: boolean;
  latest_size: number;
  /** The latest seal's time, RFC 3339. */
  latest_time: string;
  seals: number;
  detail: string;
}

export interface BundleReport {
  ok: boolean;
  verdict: string;
  subject: string;
  service: string;
  created_at: string;
  records: RecordCheck[];
  logs: LogCheck[];
  /** What the bundle carries that this verifier does not know, so did not check. */
  unchecked: string[];
}

const bytes = (b64: string) => new Uint8Array(Buffer.from(b64, "base64"));
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const unhex = (h: string) => new Uint8Array(Buffer.from(h, "hex"));

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

/** Reads a bundle's JSON text, refusing anything that is not this format's known major version. */
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

/** Checks one MMR log: every seal signed by the service, every older seal consistent with the latest. */
function checkLog(log: BundleLog, keys: KeyObject[]): { check: LogCheck; seals: Map<number, SealState> } {
  const seals = new Map<number, SealState>();
  const fail = (detail: string) => ({
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
  });
  for (const s of log.seals) {
    let raw: Uint8Array;
    let state: SealState;
    try {
      raw = bytes(s.seal);
      state = decodeSeal(raw);
    } catch (err) {
      return fail(`seal ${s.mmr_size} is malformed: ${(err as Error).message}`);
    }
    if (!keys.some((k) => verifySeal(raw, k)))
      return fail(`seal ${s.mmr_size} is not signed by the service's keys`);
    if (state.mmrSize !== s.mmr_size) return fail(`seal ${s.mmr_size} seals size ${state.mmrSize}`);
    if (`tenant/${state.logId}` !== log.log && state.logId !== log.log)
      return fail(`seal ${s.mmr_size} is of log ${state.logId}, not ${log.log}`);
    seals.set(state.mmrSize, state);
  }
  const latest = [...seals.values()].sort((a, b) => b.mmrSize - a.mmrSize)[0];
  if (!latest) return fail("no seal");
  for (const state of seals.values()) {
    if (state === latest) continue;
    const proof = log.consistency.find((c) => c.from === state.mmrSize && c.to === latest.mmrSize);
    if (!proof)
      return fail(`no consistency proof from seal ${state.mmrSize} to the latest seal ${latest.mmrSize}`);
    let ok = false;
    try {
      const paths = proof.paths.map((p) => p.map(unhex));
      ok = verifyConsistency(state.mmrSize, latest.mmrSize, state.peaks, latest.peaks, paths);
    } catch {
      ok = false;
    }
    if (!ok) return fail(`seal ${state.mmrSize} is not consistent with the latest seal ${latest.mmrSize}`);
  }
  return {
    check: {
      log: log.log,
      profile: log.profile,
      ok: true,
      latest_size: latest.mmrSize,
      latest_time: new Date(latest.timestampMs).toISOString(),
      seals: seals.size,
      detail: `${seals.size} seal(s) signed by the service; each consistent with the latest (size ${latest.mmrSize})`,
    },
    seals,
  };
}

/** A log's checkpoint, checked against the key the bundle carries for it. */
interface CheckedCheckpoint {
  checkpoint: Checkpoint;
  consistency: BundleCheckpoint["consistency"];
  /** Signature lines besides the log's own: witness cosignatures, whose keys a bundle does not carry. */
  cosignatures: number;
}

function checkCheckpoint(cp: BundleCheckpoint): CheckedCheckpoint | string {
  const v = verifyCheckpoint(cp.note, { logVkey: cp.key, witnessVkeys: [], quorum: 0 });
  if (!v.ok) return `its checkpoint does not verify: ${v.reason}`;
  let lines = 0;
  try {
    lines = parseNote(cp.note).signatures.length;
  } catch {
    return "its checkpoint is not a signed note";
  }
  return {
    checkpoint: v.checkpoint,
    consistency: cp.consistency ?? [],
    cosignatures: Math.max(0, lines - 1),
  };
}

/**
 * An RFC 9162 receipt: valid on its own (a root the service signed), and tied to the log's
 * bundled checkpoint when there is one: the same root at the same size, or a consistency proof
 * from the receipt's tree to the checkpoint's.
 */
function checkTreeReceipt(
  record: Record<string, unknown>,
  r: BundleReceipt,
  keyMap: Map<string, KeyObject>,
  checkpoint: CheckedCheckpoint | undefined,
): { ok: boolean; detail: string } {
  let v: ReturnType<typeof verifyRecordReceipt>;
  try {
    v = verifyRecordReceipt(record, bytes(r.receipt), keyMap);
  } catch (err) {
    return { ok: false, detail: `receipt is malformed: ${(err as Error).message}` };
  }
  if (!v.ok) return { ok: false, detail: v.reason };
  if (v.profile !== "rfc9162" || v.treeSize === undefined)
    return { ok: false, detail: "the receipt is not an RFC 9162 receipt" };
  if (v.subject !== r.log) return { ok: false, detail: `the receipt is of log ${v.subject}` };
  const where = `leaf of the RFC 9162 tree of ${v.treeSize} entries of ${r.log}`;
  if (!checkpoint) return { ok: true, detail: `${where} (no checkpoint in the bundle)` };
  const cp = checkpoint.checkpoint;
  const root = unhex(v.peak);
  let tied = false;
  if (cp.size === v.treeSize) tied = hex(cp.root) === v.peak;
  else {
    const proof = checkpoint.consistency.find((c) => c.from === v.treeSize && c.to === cp.size);
    tied =
      proof !== undefined &&
      verifyTreeConsistency(v.treeSize, cp.size, root, cp.root, proof.proof.map(unhex));
  }
  if (!tied)
    return {
      ok: false,
      detail: `the receipt's tree is not consistent with the bundled checkpoint (size ${cp.size})`,
    };
  return {
    ok: true,
    detail: `${where}, within the checkpoint of size ${cp.size} signed by the log's key (${checkpoint.cosignatures} witness cosignature(s) carried)`,
  };
}

/**
 * Verifies an evidence bundle with nothing but its own contents: the keys it carries, each
 * record's leaf recomputed from its JSON, each receipt's path to a peak the service signed,
 * that peak in a bundled seal, and every seal consistent with the latest. A bundle proves what
 * the service signed; who the service is, the keys' fingerprint says (compare it out of band).
 */
export function verifyBundle(bundle: EvidenceBundle): BundleReport {
  const unchecked: string[] = [];
  let keyMap: Map<string, KeyObject>;
  try {
    keyMap = keysFromKeySet(bytes(bundle.keys.cose_key_set));
  } catch (err) {
    throw new BundleError(`the bundle's keys cannot be read: ${(err as Error).message}`);
  }
  const keys = [...keyMap.values()];
  const logs = new Map<string, { check: LogCheck; seals: Map<number, SealState> }>();
  const checkpoints = new Map<string, CheckedCheckpoint>();
  for (const log of bundle.logs) {
    if (log.profile !== "mmr") {
      unchecked.push(`log ${log.log}: profile "${log.profile}"`);
      continue;
    }
    const checked = checkLog(log, keys);
    const cp = log.checkpoints?.[0];
    if (cp) {
      const c = checkCheckpoint(cp);
      if (typeof c === "string") checked.check = { ...checked.check, ok: false, detail: c };
      else {
        checkpoints.set(log.log, c);
        if (checked.check.ok)
          checked.check = {
            ...checked.check,
            detail: `${checked.check.detail}; its C2SP checkpoint (size ${c.checkpoint.size}) is signed by the log's key, with ${c.cosignatures} witness cosignature(s) (check them against the witnesses you trust)`,
          };
      }
    }
    logs.set(log.log, checked);
  }
  const records: RecordCheck[] = bundle.records.map(({ record, receipts }) => {
    const identity = String(record.identity ?? "");
    const results = receipts.map((r) => {
      if (r.profile === "rfc9162") {
        const t = checkTreeReceipt(record, r, keyMap, checkpoints.get(r.log));
        return { profile: r.profile, ok: t.ok, known: true, detail: t.detail };
      }
      if (r.profile !== "mmr") {
        unchecked.push(`${identity}: a receipt of profile "${r.profile}"`);
        return { profile: r.profile, ok: false, known: false, detail: `profile "${r.profile}" not checked` };
      }
      let v: ReturnType<typeof verifyRecordReceipt>;
      try {
        v = verifyRecordReceipt(record, bytes(r.receipt), keyMap);
      } catch (err) {
        v = { ok: false, reason: `receipt is malformed: ${(err as Error).message}` };
      }
      if (!v.ok) return { profile: r.profile, ok: false, known: true, detail: v.reason };
      const log = logs.get(r.log);
      if (!log?.check.ok)
        return { profile: r.profile, ok: false, known: true, detail: `its log ${r.log} did not verify` };
      if (v.subject !== r.log)
        return { profile: r.profile, ok: false, known: true, detail: `the receipt is of log ${v.subject}` };
      const seal = r.mmr_size === undefined ? undefined : log.seals.get(r.mmr_size);
      if (!seal?.peaks.some((p) => hex(p) === v.peak))
        return {
          profile: r.profile,
          ok: false,
          known: true,
          detail: `the receipt's peak is not in the bundled seal ${String(r.mmr_size)}`,
        };
      return {
        profile: r.profile,
        ok: true,
        known: true,
        detail: `entry ${v.mmrIndex} of ${r.log}, under seal ${seal.mmrSize}`,
      };
    });
    const known = results.filter((r) => r.known);
    return {
      identity,
      confirmation_status: String(record.confirmation_status ?? ""),
      ok: known.length > 0 && known.every((r) => r.ok),
      receipts: results.map(({ profile, ok, detail }) => ({ profile, ok, detail })),
    };
  });
  for (const name of Object.keys(bundle.extensions ?? {})) unchecked.push(`extension "${name}"`);
  const logChecks = [...logs.values()].map((l) => l.check);
  const badLogs = logChecks.filter((l) => !l.ok);
  const badRecords = records.filter((r) => !r.ok);
  const ok = records.length > 0 && badLogs.length === 0 && badRecords.length === 0;
  const verdict =
    records.length === 0
      ? "NOT VERIFIED: the bundle holds no records"
      : badLogs.length
        ? `NOT VERIFIED: ${badLogs[0]?.log}: ${badLogs[0]?.detail}`
        : badRecords.length
          ? `NOT VERIFIED: ${badRecords.length} of ${records.length} record(s) without a valid receipt (${badRecords[0]?.identity}: ${badRecords[0]?.receipts.find((r) => !r.ok)?.detail ?? "no receipt"})`
          : `VERIFIED: ${records.length} record(s) of ${bundle.subject.id}, every receipt valid, every seal consistent with the latest`;
  return {
    ok,
    verdict,
    subject: bundle.subject.id,
    service: bundle.service,
    created_at: bundle.created_at,
    records,
    logs: logChecks,
    unchecked,
  };
}

export { BundleError };
