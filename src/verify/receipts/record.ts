import {
  decodeReceipt,
  decodeRfc9162Receipt,
  receiptVds,
  VDS_RFC9162,
  verifyReceipt,
  verifyRfc9162Receipt,
} from "../../formats/cose/index.js";
import { toHex } from "../../formats/crypto/bytes.js";
import type { PublicKey } from "../../formats/crypto/public-key.js";
import { leafIndexOfMmrIndex } from "../../formats/mmr/index.js";
import { type ApiRecord, candidateLeaves, commitOf, logIndexOf } from "../../formats/record/api-record.js";
import { leafHash } from "../../formats/rfc9162/index.js";
import { recordTreeLeaves } from "./tree-leaf.js";

/** The outcome of an offline check: what was proven, or the first reason it failed. */
export type Verdict =
  | {
      ok: true;
      /** mmr: the path led to a peak of a seal; rfc9162: to the root of the tree at `treeSize`. */
      profile: "mmr" | "rfc9162";
      mmrIndex: number;
      leaf: string;
      /** The MMR peak, or the RFC 9162 root, the receipt's signature covers. */
      peak: string;
      issuer: string;
      subject: string;
      treeSize?: number;
    }
  | { ok: false; reason: string };

const hex = toHex;

/**
 * Checks a record against its receipt with nothing but the service's public keys: the leaf
 * is recomputed from the record, the path leads to a peak, and the seal key signed that peak.
 * `statement`: for a registered statement's record, the statement it records, whose payload's
 * hash is its RFC 9162 leaf (its MMR leaf is the record's, as for any record); it must be bound
 * to the record (`recordTreeLeaves`).
 *
 * @example
 * ```ts
 * const verdict = verifyRecordReceipt(record, receiptBytes, keysFromKeySet(keySetBytes));
 * if (!verdict.ok) throw new Error(verdict.reason);
 * ```
 */
export function verifyRecordReceipt(
  record: ApiRecord,
  receipt: Uint8Array,
  keys: Map<string, PublicKey> | PublicKey,
  statement?: Uint8Array,
): Verdict {
  let leaves: Uint8Array[];
  try {
    leaves = candidateLeaves(record);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  let vds: number | undefined;
  try {
    vds = receiptVds(receipt);
  } catch (err) {
    return { ok: false, reason: `receipt is malformed: ${(err as Error).message}` };
  }
  if (vds === VDS_RFC9162) {
    const tree = recordTreeLeaves(record, statement);
    if (!tree.ok) return tree;
    const tried = tree.candidates.map((data) => verifyRfc9162RecordReceipt(record, data, receipt, keys));
    return tried.find((t) => t.ok) ?? tried[0] ?? { ok: false, reason: "no leaf to verify" };
  }
  let kid: string;
  let mmrIndex: number;
  try {
    ({ kid, mmrIndex } = decodeReceipt(receipt));
  } catch (err) {
    return { ok: false, reason: `receipt is malformed: ${(err as Error).message}` };
  }
  const key = keys instanceof Map ? keys.get(kid) : keys;
  if (!key) return { ok: false, reason: `no public key with kid ${kid}` };
  const commit = commitOf(record);
  if (commit && String(mmrIndex) !== commit.index)
    return {
      ok: false,
      reason: `receipt is for MMR position ${mmrIndex}, the record says MMR position ${commit.index}`,
    };
  const tried = leaves.map((leaf) => ({ leaf, r: verifyReceipt(receipt, leaf, key) }));
  const hit = tried.find((t) => t.r.ok) ?? tried[0];
  if (!hit) return { ok: false, reason: "no leaf to verify" };
  const { leaf, r } = hit;
  if (!r.ok) return r;
  return {
    ok: true,
    profile: "mmr",
    mmrIndex,
    leaf: hex(leaf),
    peak: hex(r.peak),
    issuer: r.info.issuer,
    subject: r.info.subject,
  };
}

/** An RFC9162_SHA256 receipt of a record: its tree leaf is SHA-256(0x00 ‖ `leafData`). */
function verifyRfc9162RecordReceipt(
  record: ApiRecord,
  leafData: Uint8Array,
  receipt: Uint8Array,
  keys: Map<string, PublicKey> | PublicKey,
): Verdict {
  const commit = commitOf(record) as { index: string };
  const mmrIndex = logIndexOf(commit.index);
  if (mmrIndex === undefined)
    return { ok: false, reason: `the record's log index "${commit.index}" is not a decimal` };
  let leafIndex: number;
  try {
    leafIndex = leafIndexOfMmrIndex(mmrIndex);
  } catch {
    return { ok: false, reason: `the record's log index ${commit.index} is not a leaf` };
  }
  const leaf = leafHash(leafData);
  let kid: string;
  try {
    kid = decodeRfc9162Receipt(receipt).kid;
  } catch (err) {
    return { ok: false, reason: `receipt is malformed: ${(err as Error).message}` };
  }
  const key = keys instanceof Map ? keys.get(kid) : keys;
  if (!key) return { ok: false, reason: `no public key with kid ${kid}` };
  const r = verifyRfc9162Receipt(receipt, leaf, key);
  if (!r.ok) return r;
  if (r.info.leafIndex !== leafIndex)
    return {
      ok: false,
      reason: `receipt is for log entry ${r.info.leafIndex}, the record is log entry ${leafIndex}`,
    };
  return {
    ok: true,
    profile: "rfc9162",
    mmrIndex,
    leaf: hex(leaf),
    peak: hex(r.root),
    issuer: r.info.issuer,
    subject: r.info.subject,
    treeSize: r.info.treeSize,
  };
}
