import type { SignatureKey } from "../../formats/crypto/public-key.js";
import type { ApiRecord } from "../../formats/record/api-record.js";
import { FIELDS_V3, FREE_EVENT_HASHED_FIELDS } from "../../formats/record/index.js";
import { sameHash } from "../../formats/rfc9162/hash.js";
import { rootFromInclusionProof } from "../../formats/rfc9162/verify.js";
import type { Checkpoint } from "../../formats/tlog/checkpoint.js";
import { parseTlogProof, type TlogProof } from "../../formats/tlog/proof.js";
import { type ProofExtra, parseProofExtra } from "../../formats/tlog/proof-extra.js";
import { type TileFetch, verifyEntryInTiles } from "../../formats/tlog/tiles.js";
import { leafHash } from "../../formats/tlog/tree.js";
import { claimsRegisteredStatement, recordTreeLeaves } from "../receipts/tree-leaf.js";
import { recordLeafIndex } from "../tlog/log-check.js";
import { judgeCheckpoint } from "./checkpoint.js";
import { logKeyFingerprint } from "./fingerprint.js";
import { checkpointStanding } from "./requirements.js";
import { pinsSomething, type TrustRoots } from "./trust.js";
import { judge, type KeyFingerprint, type TrustLevel, type VerificationVerdict } from "./verdict.js";

/**
 * The record's top-level fields no signature covers (its leaf is made of the others). An
 * asset-free event's leaf commits to its tenancy (`origin_tenant`), idtimestamp and content, so
 * its `identity`, the service's name for it, is among these.
 */
export function unsignedFields(record: ApiRecord): string[] {
  const free = String(record.identity ?? "").startsWith("events/");
  const hashed = new Set<string>(free ? [...FREE_EVENT_HASHED_FIELDS, "origin_tenant"] : FIELDS_V3);
  return Object.keys(record).filter((k) => !hashed.has(k));
}

export interface RecordInLogReport extends VerificationVerdict {
  identity: string;
  /** Where the record is, when it was found: its leaf, and the checkpoint's origin and size (signed). */
  leaf_index?: number;
  origin?: string;
  size?: number;
  cosigners: string[];
}

/** How the evidence shows an entry under a checkpoint: a tlog-proof's path, or a log's tiles. */
interface TreeEvidence {
  /** The checkpoint note, cosignatures included. */
  note: string;
  /** The log key the evidence (a mirror, the service) brings: self-consistency only, never a root. */
  carriedKey?: string | undefined;
  /** The leaf index the evidence is for (a tlog-proof's `index`); a mirror is asked at the record's. */
  index?: number;
  /** Whether `leafData` at `index` leads to the checkpoint's root, or why not. */
  includes(index: number, leafData: Uint8Array, checkpoint: Checkpoint): Promise<Inclusion>;
  /** The registered statement the record stands for, when the evidence carries one. */
  statement?: Uint8Array | undefined;
  /** What the evidence is, for the summary. */
  via: "tlog proof" | "log's tiles";
}

type Inclusion = { ok: true } | { ok: false; reason: string };

/** Statement issuers' keys the caller gave (`--issuer-key`), by kid: they alone prove a statement's subject. */
export type IssuerKeys = ReadonlyMap<string, SignatureKey>;

const failed = (
  identity: string,
  code: "tampered" | "cannot",
  reason: string,
  trust: TrustRoots,
  fingerprints: KeyFingerprint[] = [],
): RecordInLogReport => ({
  ...judge({
    tampered: code === "tampered" ? [reason] : [],
    cannotEvaluate: code === "cannot" ? [reason] : [],
    policy: [],
    pinned: pinsSomething(trust),
    level: "unpinned",
    roots: trust.described,
    fingerprints,
    notChecked: [],
    unsigned: [],
    proven: "",
  }),
  identity,
  cosigners: [],
});

type Refusal = { code: "tampered" | "cannot"; reason: string };
type JudgedCheckpoint = Extract<ReturnType<typeof judgeCheckpoint>, { ok: true }>["checkpoint"];

/** The log keys the verdict names: the one the evidence carries (pinned if the policy pins it), then the policy's. */
function treeKeyFingerprints(evidence: TreeEvidence, trust: TrustRoots): KeyFingerprint[] {
  const carried = evidence.carriedKey?.trim();
  return [
    ...(carried
      ? [
          logKeyFingerprint(
            carried,
            trust.policy.logKeys.some((k) => k.trim() === carried),
          ),
        ]
      : []),
    ...trust.policy.logKeys.filter((k) => k.trim() !== carried).map((k) => logKeyFingerprint(k, true)),
  ];
}

/** The record's own leaf index, of the checkpoint's log and under its size, or why not. */
function placeInCheckpoint(
  record: ApiRecord,
  evidence: TreeEvidence,
  checkpoint: JudgedCheckpoint,
): number | Refusal {
  let leafIndex: number | undefined;
  try {
    leafIndex = recordLeafIndex(record);
  } catch (err) {
    return { code: "tampered", reason: (err as Error).message };
  }
  if (leafIndex === undefined)
    return { code: "cannot", reason: "the record has no log index (it is not committed yet)" };
  if (evidence.index !== undefined && evidence.index !== leafIndex)
    return {
      code: "tampered",
      reason: `the proof is for log entry ${evidence.index}, the record is log entry ${leafIndex}`,
    };
  const tenant = String(record.tenant_identity ?? record.origin_tenant ?? "").replace(/^tenant\//, "");
  if (!tenant || !checkpoint.origin.endsWith(`/merklelogs/${tenant}/tlog`))
    return {
      code: "tampered",
      reason: `the record is in tenancy ${tenant || "(none named)"}'s log, not in ${checkpoint.origin}`,
    };
  if (leafIndex >= checkpoint.size)
    return {
      code: "tampered",
      reason: `log entry ${leafIndex} is beyond the checkpoint's ${checkpoint.size} entries`,
    };
  return leafIndex;
}

/** The first leaf the record's kind makes that the tree holds at its index, or why none is. */
async function matchLeaf(
  record: ApiRecord,
  evidence: TreeEvidence,
  candidates: Uint8Array[],
  leafIndex: number,
  checkpoint: JudgedCheckpoint,
): Promise<Uint8Array | Refusal> {
  let why = "";
  for (const data of candidates) {
    const r = await evidence.includes(leafIndex, data, checkpoint);
    if (r.ok) return data;
    why ||= r.reason;
  }
  if (claimsRegisteredStatement(record) && !evidence.statement)
    return {
      code: "cannot",
      reason:
        "the record is a registered statement: its log entry is the statement's payload hash, so the statement is needed to check what the record says (this service's tlog-proofs carry it; else give --statement)",
    };
  return {
    code: "tampered",
    reason: `the record's log entry ${leafIndex} is not in the tree of the checkpoint of ${checkpoint.size} entries: ${why}`,
  };
}

/**
 * A record (its API JSON) in a log's RFC 9162 tree under a checkpoint, judged against the
 * caller's roots: the checkpoint (`judgeCheckpoint`, then every requirement of the policy), the
 * leaf the record's kind makes (`recordTreeLeaves`) at the record's own index, and the record's
 * tenancy being the log's. The carried key makes a forged log self-consistent at best; a pinned
 * log key, or a quorum of trusted witnesses, is what makes it verified.
 */
async function verifyRecordInTree(
  record: ApiRecord,
  evidence: TreeEvidence,
  trust: TrustRoots,
  issuerKeys: IssuerKeys = new Map(),
  now = new Date(),
): Promise<RecordInLogReport> {
  const identity = String(record.identity ?? "");
  const j = judgeCheckpoint(evidence.note, evidence.carriedKey, trust.policy);
  const fingerprints = treeKeyFingerprints(evidence, trust);
  const fail = (code: "tampered" | "cannot", reason: string) =>
    failed(identity, code, reason, trust, fingerprints);
  if (!j.ok) return fail("tampered", j.reason);
  const { checkpoint } = j;
  const leafIndex = placeInCheckpoint(record, evidence, checkpoint);
  if (typeof leafIndex !== "number") return fail(leafIndex.code, leafIndex.reason);
  const leaves = recordTreeLeaves(record, evidence.statement, issuerKeys);
  if (!leaves.ok) return fail("tampered", leaves.reason);
  const matched = await matchLeaf(record, evidence, leaves.candidates, leafIndex, checkpoint);
  if (!(matched instanceof Uint8Array)) return fail(matched.code, matched.reason);

  const standing = checkpointStanding(j, trust, now);
  const policy = [...standing.policy];
  const cannot: string[] = [];
  const viaStatement = leaves.statement && matched === leaves.statement.leafData;
  if (viaStatement && leaves.statement) {
    const { kid, state } = leaves.statement.issuer;
    if (state !== "verified")
      cannot.push(
        `the record is a registered statement: the log holds its payload's hash, and its subject and issuer are proven by the issuer's signature alone, under a key you did not give (--issuer-key ${kid || "<kid>"}=<key file>)`,
      );
  }
  const level: TrustLevel = standing.level;
  const cosigned = j.cosigners.length ? `, cosigned by ${j.cosigners.join(", ")}` : "";
  const what = viaStatement
    ? `${identity} (a registered statement: its payload is log entry ${leafIndex}; its subject and issuer are signed by the issuer)`
    : identity;
  const report = judge({
    tampered: [],
    cannotEvaluate: cannot,
    policy,
    pinned: pinsSomething(trust),
    level,
    roots: trust.described,
    fingerprints,
    notChecked: standing.notChecked,
    unsigned: unsignedFields(record).map((f) => `${f}: not part of the signed leaf`),
    proven:
      evidence.via === "tlog proof"
        ? `${what} is log entry ${leafIndex} of ${checkpoint.origin}, under its checkpoint of ${checkpoint.size} entries (tlog proof${cosigned})`
        : `${what} is log entry ${leafIndex} of ${checkpoint.origin}, under its checkpoint of ${checkpoint.size} entries${cosigned}`,
  });
  return {
    ...report,
    identity,
    leaf_index: leafIndex,
    origin: checkpoint.origin,
    size: checkpoint.size,
    cosigners: j.cosigners,
  };
}

/**
 * A record in a log's tiles (a mirror, the service, a CDN), under the checkpoint `note`;
 * `carriedKey` is the key the mirror or the log serves for itself.
 *
 * @example
 * ```ts
 * const report = await verifyRecordInLog(record, checkpointNote, servedVkey, { policy, described: ["policy"] }, readTile);
 * console.log(report.code);
 * ```
 */
export function verifyRecordInLog(
  record: ApiRecord,
  note: string,
  carriedKey: string | undefined,
  trust: TrustRoots,
  fetch: TileFetch,
  opts: { issuerKeys?: IssuerKeys; statement?: Uint8Array | undefined; now?: Date } = {},
): Promise<RecordInLogReport> {
  return verifyRecordInTree(
    record,
    {
      note,
      carriedKey,
      statement: opts.statement,
      via: "log's tiles",
      includes: (index, data, cp) => verifyEntryInTiles(index, data, cp.size, cp.root, fetch),
    },
    trust,
    opts.issuerKeys,
    opts.now,
  );
}

/**
 * A record against its c2sp.org/tlog-proof: the proof's checkpoint judged against the caller's
 * roots (`served`: the log key the service serves, a claim and never a root), the inclusion
 * path from the record's leaf at the proof's index. This service's proofs carry a registered
 * statement in their extra data; `statement` gives one for a proof that does not.
 *
 * @example
 * ```ts
 * const report = await verifyRecordTlogProofReport(record, proofText, { policy, described: ["policy"] });
 * if (report.code !== "verified") console.error(report.summary);
 * ```
 */
export function verifyRecordTlogProofReport(
  record: ApiRecord,
  proofText: string,
  trust: TrustRoots,
  opts: { served?: string; issuerKeys?: IssuerKeys; statement?: Uint8Array; now?: Date } = {},
): Promise<RecordInLogReport> {
  const identity = String(record.identity ?? "");
  let proof: TlogProof;
  let extra: ProofExtra;
  try {
    proof = parseTlogProof(proofText);
    extra = parseProofExtra(proof.extra);
  } catch (err) {
    return Promise.resolve(failed(identity, "cannot", `not a tlog proof: ${(err as Error).message}`, trust));
  }
  return verifyRecordInTree(
    record,
    {
      note: proof.checkpoint,
      carriedKey: opts.served,
      index: proof.index,
      statement: opts.statement ?? extra.statement,
      via: "tlog proof",
      includes: async (index, data, cp) => {
        const root = rootFromInclusionProof(index, cp.size, leafHash(data), proof.path);
        return root && sameHash(root, cp.root)
          ? { ok: true }
          : { ok: false, reason: "the inclusion path does not lead to the checkpoint's root" };
      },
    },
    trust,
    opts.issuerKeys,
    opts.now,
  );
}
