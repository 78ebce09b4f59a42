import { type ApiRecord, candidateLeaves } from "../../formats/record/api-record.js";
import { type LogTrust, otherLog, recordEntry } from "./log-check.js";
import { type TlogProofVerdict, verifyTlogProof } from "./proof-check.js";

/**
 * Verifies a record's tlog-proof with nothing but the record's JSON and the log's trust: the
 * leaf data recomputed from the record (its MMR leaf: the leaf follows from what the record is,
 * never from a value it carries), the proof's index the record's leaf index, the checkpoint's
 * origin the record's tenancy's log. A registered statement's entry is its payload's hash, which
 * proves nothing of the record's subject: `verifyRecordTlogProofReport` checks those with the
 * statement and its issuer's key.
 *
 * @example
 * ```ts
 * const v = verifyRecordTlogProof(record, proofText, { logVkey, witnessVkeys: [], quorum: 0 });
 * if (!v.ok) console.error(v.reason);
 * ```
 */
export function verifyRecordTlogProof(record: ApiRecord, proof: string, trust: LogTrust): TlogProofVerdict {
  const entry = recordEntry(record, candidateLeaves);
  if (!entry.ok) return entry;
  const v = verifyTlogProof(proof, entry.leaves, trust);
  if (!v.ok) return v;
  if (v.index !== entry.leafIndex)
    return {
      ok: false,
      reason: `the proof is for log entry ${v.index}, the record is log entry ${entry.leafIndex}`,
    };
  const elsewhere = otherLog(record, v.checkpoint.origin);
  return elsewhere ? { ok: false, reason: elsewhere } : v;
}
