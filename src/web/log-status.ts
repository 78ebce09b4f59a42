import { parseCheckpoint } from "../formats/tlog/checkpoint.js";
import { cosignatureDate, cosignatureTime } from "../formats/tlog/cosignature.js";
import { COSIGNATURE_V1, ED25519, parseVkey } from "../formats/tlog/keys.js";
import { ML_DSA_44 } from "../formats/tlog/ml-dsa.js";
import { parseNote } from "../formats/tlog/note.js";
import { verifierFromVkey } from "../formats/tlog/vkey-verifier.js";
import { LookupError, type PublicApi } from "../lookup/public-api.js";
import type { TrustRoots, VerdictCode, VerificationVerdict } from "../verify/index.js";
import {
  checkpointStanding,
  judge,
  judgeCheckpoint,
  logKeyFingerprint,
  pinsSomething,
} from "../verify/index.js";

/** One signature line of the checkpoint, checked here. */
interface SignatureLineCheck {
  name: string;
  /** `log`: the log's own key; `witness`: a configured witness; `unknown`: a key nobody named. */
  role: "log" | "witness" | "unknown";
  algorithm: "Ed25519" | "ML-DSA-44" | "unknown";
  verified: boolean;
  /** A cosignature's own timestamp (RFC 3339), when the line is one. */
  time?: string;
}

/** A configured witness as `…/tlog/witnesses` lists it. */
interface WitnessInfo {
  name: string;
  vkey: string;
  algorithm: string;
  last_cosigned_size: number;
  last_cosigned_at: string;
}

/** The tenancy's log as the live panel shows it. */
export interface LogStatus {
  origin: string;
  size: number;
  root: string;
  signatures: SignatureLineCheck[];
  witnesses: WitnessInfo[];
  quorum: number;
  /**
   * The checkpoint judged by the caller's roots: `verified` under a log key they pinned or a quorum
   * of their witnesses, `policy-failed` when it meets neither; without roots self-consistent at
   * best (under the keys the service serves); `tampered` when a signature does not verify.
   */
  code: VerdictCode;
  /** How far a verified checkpoint is anchored: `witnessed` when a quorum of the caller's witnesses cosigned it. */
  level: VerificationVerdict["trust"]["level"];
  /** The verdict in words. */
  summary: string;
  problem?: string;
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));

function algorithmOf(vkey: string): SignatureLineCheck["algorithm"] {
  const t = parseVkey(vkey).type;
  if (t === ED25519 || t === COSIGNATURE_V1) return "Ed25519";
  return t === ML_DSA_44 ? "ML-DSA-44" : "unknown";
}

async function fetchText(api: PublicApi, path: string): Promise<string | undefined> {
  const { status, bytes } = await api.get(path);
  if (status === 404) return undefined;
  if (status !== 200) throw new LookupError(`GET ${path} answered ${status}`, status);
  return text(bytes).trim();
}

/**
 * The newest published checkpoint of the tenancy's log with each signature line checked here
 * (the log's Ed25519 and ML-DSA-44 keys, the configured witnesses' cosignature keys, all as the
 * service serves them), judged by the caller's roots, and the witnesses with their newest
 * cosignatures. Undefined before the log's first checkpoint.
 */
export async function logStatus(
  api: PublicApi,
  tenant: string,
  trust: TrustRoots,
): Promise<LogStatus | undefined> {
  const base = `/archivist/v1/merklelogs/${tenant}/tlog`;
  const note = await fetchText(api, `${base}/checkpoint`);
  if (note === undefined) return undefined;
  const logKey = await fetchText(api, `${base}/key`);
  const pqKey = await fetchText(api, `${base}/key-ml-dsa-44`);
  const listed = await api.json<{ quorum: number; witnesses: WitnessInfo[] }>(`${base}/witnesses`);
  const full = `${note}\n`;
  const parsed = parseNote(full);
  const checkpoint = parseCheckpoint(parsed.text);
  const keys = [
    ...[logKey, pqKey].flatMap((k) => (k ? [{ vkey: k, role: "log" as const }] : [])),
    ...listed.witnesses.map((w) => ({ vkey: w.vkey, role: "witness" as const })),
  ].map((k) => ({ ...k, verifier: verifierFromVkey(k.vkey), algorithm: algorithmOf(k.vkey) }));
  const bytes = new TextEncoder().encode(parsed.text);
  const signatures = parsed.signatures.map((s): SignatureLineCheck => {
    const k = keys.find((x) => x.verifier.name === s.name && x.verifier.keyId === s.keyId);
    if (!k) return { name: s.name, role: "unknown", algorithm: "unknown", verified: false };
    const seconds = k.role === "witness" ? cosignatureTime(s.signature) : undefined;
    // A time RFC 3339 cannot write (a witness's broken clock) is left unsaid, not a crash.
    const at = seconds === undefined ? undefined : cosignatureDate(seconds);
    return {
      name: s.name,
      role: k.role,
      algorithm: k.algorithm,
      verified: k.verifier.verify(bytes, s.signature),
      ...(at !== undefined ? { time: at } : {}),
    };
  });
  const judged = judgeCheckpoint(full, logKey, trust.policy);
  const bad = signatures.find((s) => s.role !== "unknown" && !s.verified);
  const broken = !judged.ok
    ? judged.reason
    : bad
      ? `the ${bad.algorithm} signature of ${bad.name} does not verify`
      : undefined;
  const verdict = judge({
    tampered: broken ? [broken] : [],
    policy: judged.ok ? checkpointStanding(judged, trust, new Date()).policy : [],
    pinned: pinsSomething(trust),
    level: judged.ok && judged.witnessed ? "witnessed" : "pinned",
    roots: trust.described,
    fingerprints: logKey
      ? [
          logKeyFingerprint(
            logKey,
            trust.policy.logKeys.some((k) => k.trim() === logKey),
          ),
        ]
      : [],
    notChecked: [],
    unsigned: [],
    proven: `${checkpoint.origin} at ${checkpoint.size} entries, signed by the log's key${judged.ok && judged.cosigners.length ? `, cosigned by ${judged.cosigners.length} of your witnesses` : ""}`,
  });
  const problem =
    verdict.code === "verified" || verdict.code === "self-consistent-unpinned"
      ? undefined
      : verdict.problems[0];
  return {
    origin: checkpoint.origin,
    size: checkpoint.size,
    root: b64(checkpoint.root),
    signatures,
    witnesses: listed.witnesses,
    quorum: listed.quorum,
    code: verdict.code,
    level: verdict.trust.level,
    summary: verdict.summary,
    ...(problem ? { problem } : {}),
  };
}
