import { CodedError } from "../api/coded-error.js";
import { decodeSeal, verifySeal } from "../cose/index.js";
import { type PublicKey, type PublicKeyFactory, publicKeyFromJwk } from "../crypto/public-key.js";
import { leafIndexOfMmrIndex, verifyConsistency } from "../mmr/index.js";
import { type AttributeStanding, erasableStandings, erasedWords } from "../record/erasable.js";
import { verifyConsistency as verifyTreeConsistency } from "../rfc9162/index.js";
import {
  type CheckpointJudgement,
  coseKeyFingerprints,
  judge,
  judgeCheckpoint,
  type KeyFingerprint,
  logKeyFingerprint,
  noTrust,
  pinsSomething,
  type TrustLevel,
  type TrustRoots,
  trustAtLeast,
  unsignedFields,
  type VerificationVerdict,
} from "../verdict/index.js";
import { keysFromKeySet, verifyRecordReceipt } from "../verify/index.js";
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

/** The verdict on a bundle: the shared verdict object, with what each record and log showed. */
export interface BundleReport extends VerificationVerdict {
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

/** Checks one MMR log: every seal signed by one of `keys`, every older seal consistent with the latest. */
function checkLog(log: BundleLog, keys: PublicKey[]): { check: LogCheck; seals: Map<number, SealState> } {
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
      return fail(`seal ${s.mmr_size} is not signed by the keys checked with`);
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
      detail: `${seals.size} seal(s), each signed and consistent with the latest (size ${latest.mmrSize})`,
    },
    seals,
  };
}

/** A log's bundled checkpoint, judged, with the RFC 9162 consistency proofs the bundle carries for it. */
interface CheckedCheckpoint {
  judged: Extract<CheckpointJudgement, { ok: true }>;
  consistency: BundleCheckpoint["consistency"];
}

type TreeTie = { ok: true; detail: string; within?: CheckedCheckpoint } | { ok: false; detail: string };

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
  if (leafIndex < cp.size)
    return { ok: true, detail: `within the checkpoint of size ${cp.size}${cosigned}`, within: c };
  return {
    ok: true,
    detail: `newer than the checkpoint of size ${cp.size}${cosigned}: the receipt's tree extends it, the record is not yet under it`,
  };
}

interface Pass {
  logs: Map<string, { check: LogCheck; seals: Map<number, SealState> }>;
  records: Array<{
    ok: boolean;
    receipts: ReceiptCheck[];
    known: number;
    valid: number;
    ties: CheckedCheckpoint[];
  }>;
  unknown: string[];
}

/** Every seal, receipt and proof of the bundle checked with `keyMap`, checkpoints as judged. */
function checkPass(
  bundle: EvidenceBundle,
  keyMap: Map<string, PublicKey>,
  checkpoints: Map<string, CheckedCheckpoint>,
): Pass {
  const keys = [...keyMap.values()];
  const unknown: string[] = [];
  const logs: Pass["logs"] = new Map();
  for (const log of bundle.logs) {
    if (log.profile !== "mmr") {
      unknown.push(`log ${log.log}: profile "${log.profile}"`);
      continue;
    }
    logs.set(log.log, checkLog(log, keys));
  }
  const records = bundle.records.map(({ record, receipts }) => {
    const identity = String(record.identity ?? "");
    const ties: CheckedCheckpoint[] = [];
    const results = receipts.map((r: BundleReceipt): ReceiptCheck & { known: boolean } => {
      const fail = (detail: string) => ({ profile: r.profile, ok: false, known: true, detail });
      if (r.profile !== "mmr" && r.profile !== "rfc9162") {
        unknown.push(`${identity}: a receipt of profile "${r.profile}"`);
        return { profile: r.profile, ok: false, known: false, detail: `profile "${r.profile}" not checked` };
      }
      let v: ReturnType<typeof verifyRecordReceipt>;
      try {
        v = verifyRecordReceipt(record, bytes(r.receipt), keyMap);
      } catch (err) {
        v = { ok: false, reason: `receipt is malformed: ${(err as Error).message}` };
      }
      if (!v.ok) return fail(v.reason);
      if (v.subject !== r.log) return fail(`the receipt is of log ${v.subject}`);
      if (v.profile !== r.profile)
        return fail(`the receipt is of profile ${v.profile}, filed as ${r.profile}`);
      const ok = (detail: string) => ({
        profile: r.profile,
        ok: true,
        known: true,
        detail,
        issuer: v.issuer,
      });
      if (r.profile === "rfc9162") {
        if (v.treeSize === undefined) return fail("the receipt names no tree size");
        const where = `leaf of the RFC 9162 tree of ${v.treeSize} entries of ${r.log}`;
        const cp = checkpoints.get(r.log);
        if (!cp) return ok(`${where} (no checkpoint in the bundle)`);
        const tie = tieToCheckpoint(v.treeSize, v.peak, leafIndexOfMmrIndex(v.mmrIndex), cp);
        if (!tie.ok) return fail(tie.detail);
        if (tie.within) ties.push(tie.within);
        return ok(`${where}, ${tie.detail}`);
      }
      const log = logs.get(r.log);
      if (!log?.check.ok) return fail(`its log ${r.log} did not verify`);
      const seal = r.mmr_size === undefined ? undefined : log.seals.get(r.mmr_size);
      if (!seal?.peaks.some((p) => hex(p) === v.peak))
        return fail(`the receipt's peak is not in the bundled seal ${String(r.mmr_size)}`);
      return ok(`entry ${v.mmrIndex} of ${r.log}, under seal ${seal.mmrSize}`);
    });
    const known = results.filter((r) => r.known);
    return {
      ok: known.length > 0 && known.every((r) => r.ok),
      receipts: results.map(({ known: _k, ...r }) => r),
      known: known.length,
      valid: known.filter((r) => r.ok).length,
      ties,
    };
  });
  return { logs, records, unknown };
}

/** The subject a record is of: an asset event's asset, or the vCon an event's (signed) attributes name. */
function recordSubject(record: Record<string, unknown>, kind: "asset" | "vcon"): string {
  if (kind === "asset") return String(record.identity ?? "").replace(/\/events\/.*$/, "");
  const attrs = (record.event_attributes ?? record.attributes) as Record<string, unknown> | undefined;
  return String(attrs?.subject ?? "");
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

/**
 * Verifies an evidence bundle offline. The bundle's own keys show only that it is
 * self-consistent (anyone can make such a bundle); trust comes from the caller's roots: the
 * service's COSE keys (`serviceKeys`, or pinned by fingerprint in the policy), the log's
 * checkpoint key and witnesses (C2SP tlog-policy), and the relying party's requirements.
 * Everything the verdict states is signed: each record's subject is checked against the
 * bundle's subject, the service against the receipts' issuer; the rest is labelled unsigned.
 * `makeKey` makes the bundle's keys: portable, unless a Node program passes node:crypto's.
 */
export function verifyBundle(
  bundle: EvidenceBundle,
  trust: TrustRoots = noTrust(),
  now = new Date(),
  makeKey: PublicKeyFactory = publicKeyFromJwk,
): BundleReport {
  const policy = trust.policy;
  const keySetBytes = bytes(bundle.keys.cose_key_set);
  let carried: Map<string, PublicKey>;
  try {
    carried = keysFromKeySet(keySetBytes, makeKey);
  } catch (err) {
    throw new BundleError(`the bundle's keys cannot be read: ${(err as Error).message}`);
  }
  const tampered: string[] = [];
  const policyProblems: string[] = [];
  const notChecked: string[] = [COMPLETENESS];
  const unsigned: string[] = [
    "created_at: when the bundle says it was exported",
    "assets[]: the asset records are context; no signature covers them",
  ];
  if (bundle.service_verdict !== undefined)
    unsigned.push(
      "service_verdict: the service's judgement of its own evidence when it exported it; this verdict is made anew and never reads it",
    );

  // The keys the caller pinned: given by value, or the bundle's whose fingerprint the policy names.
  const byPrint = (kid: string, print: string) =>
    policy.serviceKeys.some((p) => p.kid === kid && p.fingerprint === print);
  const fingerprints: KeyFingerprint[] = coseKeyFingerprints(keySetBytes, carried, (kid, print) =>
    trust.serviceKeys ? false : byPrint(kid, print),
  );
  let pinnedKeys: Map<string, PublicKey> | undefined;
  if (trust.serviceKeys) {
    pinnedKeys = trust.serviceKeys;
    for (const [kid, key] of trust.serviceKeys)
      fingerprints.push(...coseKeyFingerprints(new Uint8Array(), new Map([[kid, key]]), () => true).slice(1));
  } else if (policy.serviceKeys.length > 0) {
    pinnedKeys = new Map(
      [...carried].filter(([kid]) =>
        fingerprints.some((f) => f.kind === "cose-key" && f.id === kid && f.pinned),
      ),
    );
  }

  // Checkpoints, judged against the caller's log keys and witnesses.
  const checkpoints = new Map<string, CheckedCheckpoint>();
  const logJudgements = new Map<string, CheckedCheckpoint>();
  const checkpointTamper = new Map<string, string>();
  for (const log of bundle.logs) {
    const cp = log.profile === "mmr" ? log.checkpoints?.[0] : undefined;
    if (!cp) continue;
    const j = judgeCheckpoint(cp.note, cp.key, policy);
    fingerprints.push(
      logKeyFingerprint(cp.key, j.ok && policy.logKeys.some((k) => k.trim() === cp.key.trim())),
    );
    if (!j.ok) {
      checkpointTamper.set(log.log, j.reason);
      continue;
    }
    const c = { judged: j, consistency: cp.consistency ?? [] };
    checkpoints.set(log.log, c);
    logJudgements.set(log.log, c);
    if (j.policy && (policy.logKeys.length > 0 || policy.witnesses.size > 0))
      policyProblems.push(`log ${log.log}: ${j.policy}`);
  }

  const pass = checkPass(bundle, carried, checkpoints);
  const pinnedPass = pinnedKeys ? checkPass(bundle, pinnedKeys, checkpoints) : undefined;
  notChecked.push(...pass.unknown.map((u) => `${u} (unknown to this verifier)`));
  for (const name of Object.keys(bundle.extensions ?? {}))
    notChecked.push(`extension "${name}" (unknown to this verifier)`);

  const logs: LogCheck[] = [...pass.logs.entries()].map(([name, { check }]) => {
    const c = logJudgements.get(name);
    const bad = checkpointTamper.get(name);
    if (bad) tampered.push(`log ${name}: ${bad}`);
    else if (!check.ok) tampered.push(`log ${name}: ${check.detail}`);
    else if (pinnedPass && !pinnedPass.logs.get(name)?.check.ok)
      policyProblems.push(`log ${name}: its seals are not signed by a key you pinned`);
    const j = c?.judged;
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

  const subject = bundle.subject.id;
  const issuers = new Set<string>();
  const unsignedCount = new Map<string, number>();
  const records: RecordCheck[] = bundle.records.map(({ record }, i) => {
    const identity = String(record.identity ?? "");
    const p = pass.records[i] as Pass["records"][number];
    const pinnedOk = pinnedPass?.records[i]?.ok ?? false;
    for (const f of unsignedFields(record)) unsignedCount.set(f, (unsignedCount.get(f) ?? 0) + 1);
    if (!p.ok)
      tampered.push(
        `${identity || `record ${i + 1}`}: ${p.receipts.find((r) => !r.ok)?.detail ?? "no receipt (not sealed when exported)"}`,
      );
    else if (pinnedPass && !pinnedOk)
      policyProblems.push(`${identity}: its receipts are not signed by a key you pinned`);
    const of = recordSubject(record, bundle.subject.kind);
    if (of !== subject)
      tampered.push(
        `${identity}: the record is of ${of || "no subject"}, not of the bundle's subject ${subject}`,
      );
    for (const r of p.receipts) if (r.ok && r.issuer !== undefined) issuers.add(r.issuer);
    // A disclosed value that does not hash to its (signed) commitment contradicts the record.
    const standings = erasableStandings(record);
    for (const st of standings) if (st.state === "mismatch") tampered.push(`${identity}: ${st.reason}`);
    let level: TrustLevel = "unpinned";
    if (p.ok && pinnedOk) level = "pinned";
    if (p.ok && p.ties.some((t) => t.judged.pinned)) level = "pinned";
    if (p.ok && p.ties.some((t) => t.judged.witnessed)) level = "witnessed";
    if (p.ok && p.valid < policy.minReceipts)
      policyProblems.push(`${identity}: ${p.valid} valid receipt(s), the policy needs ${policy.minReceipts}`);
    return {
      identity,
      ok: p.ok && of === subject,
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

  // The service: the receipts' signed issuer, which the bundle's field must name.
  const service = [...issuers][0] ?? "";
  if (issuers.size > 1) tampered.push(`the receipts name more than one issuer: ${[...issuers].join(", ")}`);
  else if (service && bundle.service !== service)
    tampered.push(`the bundle says it is from ${bundle.service}, its receipts were issued by ${service}`);
  for (const a of bundle.assets ?? []) {
    const id = String(a.identity ?? "");
    if (!bundle.records.some(({ record }) => String(record.identity ?? "").startsWith(`${id}/events/`)))
      tampered.push(`assets[]: ${id || "an asset without identity"} is not the asset of any bundled record`);
  }

  // The relying party's requirements.
  if (policy.issuers.length > 0 && service && !policy.issuers.includes(service))
    policyProblems.push(`the receipts' issuer ${service} is not one the policy accepts`);
  if (policy.maxAgeSeconds !== undefined)
    for (const l of logs) {
      const age = (now.getTime() - Date.parse(l.latest_time)) / 1000;
      if (l.ok && !(age <= policy.maxAgeSeconds))
        policyProblems.push(
          `log ${l.log}: its latest seal (${l.latest_time}) is older than the policy's ${policy.maxAgeSeconds}s`,
        );
    }
  const pinned = pinsSomething(trust);
  const wantsWitness = policy.witnesses.size > 0 && policy.quorum !== "none";
  const minTrust: TrustLevel = policy.minTrust ?? (wantsWitness ? "witnessed" : "pinned");
  if (pinned)
    for (const r of records)
      if (r.ok && !trustAtLeast(r.trust, minTrust))
        policyProblems.push(
          minTrust === "witnessed"
            ? `${r.identity}: not under a checkpoint cosigned by your witnesses' quorum`
            : `${r.identity}: not proven under any key you pinned`,
        );
  const level: TrustLevel =
    records.length && records.every((r) => r.trust === "witnessed") ? "witnessed" : "pinned";
  if (!wantsWitness)
    notChecked.push("witness cosignatures: you named no witness; cosignature lines are counted, not checked");
  return {
    ...judge({
      tampered,
      policy: policyProblems,
      cannotEvaluate: records.length === 0 ? ["the bundle holds no records"] : [],
      pinned,
      level,
      roots: trust.described,
      fingerprints,
      notChecked,
      unsigned,
      proven: `${records.length} record(s) of ${subject}, each in the log under a signed seal, every seal consistent with the latest`,
    }),
    subject,
    service,
    created_at: bundle.created_at,
    records,
    logs,
  };
}

export { BundleError };
