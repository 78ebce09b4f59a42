import type { BundleCheckpoint, BundleLog, EvidenceBundle } from "../../formats/bundle/format.js";
import { decodeSeal, verifySeal } from "../../formats/cose/index.js";
import type { PublicKey } from "../../formats/crypto/public-key.js";
import { verifyConsistency } from "../../formats/mmr/index.js";
import { verifyConsistency as verifyTreeConsistency } from "../../formats/rfc9162/index.js";
import {
  type CheckpointJudgement,
  judgeCheckpoint,
  type KeyFingerprint,
  logKeyFingerprint,
  type TrustRoots,
} from "../verdict/index.js";
import type { BundleFailureCode, Findings } from "./failures.js";
import { bytes, hex, unhex } from "./parse.js";
import type { LogCheck } from "./report.js";

// The logs of a bundle: each MMR log's seals checked, each bundled checkpoint judged, and a
// receipt's RFC 9162 tree tied to its log's checkpoint.

type SealState = ReturnType<typeof decodeSeal>;

export interface CheckedLog {
  check: LogCheck;
  seals: Map<number, SealState>;
  failure?: BundleFailureCode;
  /** The kid of the key that signed each seal, so pinning needs no second check of it. */
  signers: string[];
}

/** A seal named by its numbering: an MMR size, not a count of log entries. */
const sealOf = (mmrSize: number) => `the seal of MMR size ${mmrSize}`;

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
      return fail("SEAL_MALFORMED", `${sealOf(s.mmr_size)} is malformed: ${(err as Error).message}`);
    }
    const signer = [...keys].find(([, k]) => verifySeal(raw, k));
    if (!signer) return fail("SEAL_UNSIGNED", `${sealOf(s.mmr_size)} is not signed by the keys checked with`);
    if (state.mmrSize !== s.mmr_size)
      return fail(
        "SEAL_SIZE_MISMATCH",
        `the seal filed as MMR size ${s.mmr_size} seals MMR size ${state.mmrSize}`,
      );
    if (`tenant/${state.logId}` !== log.log && state.logId !== log.log)
      return fail("SEAL_OF_OTHER_LOG", `${sealOf(s.mmr_size)} is of log ${state.logId}, not ${log.log}`);
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
        `no consistency proof from ${sealOf(state.mmrSize)} to the latest, of MMR size ${latest.mmrSize}`,
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
        `${sealOf(state.mmrSize)} is not consistent with the latest, of MMR size ${latest.mmrSize}`,
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
      detail: `${seals.size} seal(s), each signed and consistent with the latest (MMR size ${latest.mmrSize})`,
    },
    seals,
    signers,
  };
}

/** A log's bundled checkpoint, judged, with the RFC 9162 consistency proofs the bundle carries for it. */
export interface CheckedCheckpoint {
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
export function tieToCheckpoint(
  treeSize: number,
  root: string,
  leafIndex: number,
  c: CheckedCheckpoint,
): TreeTie {
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
      detail: `the receipt's tree of ${treeSize} entries is not consistent with the bundled checkpoint of ${cp.size} entries`,
    };
  const cosigned = c.judged.witnessed ? `, cosigned by ${c.judged.cosigners.join(", ")}` : "";
  if (leafIndex < cp.size)
    return { ok: true, detail: `within the checkpoint of ${cp.size} entries${cosigned}` };
  return {
    ok: true,
    detail: `newer than the checkpoint of ${cp.size} entries${cosigned}: the receipt's tree extends it, the record is not yet under it`,
  };
}

/** Step 3: each log's bundled checkpoint, judged against the caller's log keys and witnesses. */
export function judgeCheckpoints(
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
export function checkLogs(bundle: EvidenceBundle, carried: Map<string, PublicKey>, unknown: string[]) {
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
export function logVerdicts(
  logs: Map<string, CheckedLog>,
  judged: ReturnType<typeof judgeCheckpoints>,
  pins: { pinning: boolean; isPinned: (kid: string) => boolean },
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
