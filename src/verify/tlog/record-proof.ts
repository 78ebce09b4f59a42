import { type ApiRecord, candidateLeaves } from "../receipts/record.js";
import { type LogTrust, recordLeafIndex } from "./log-check.js";
import { type TlogProofVerdict, verifyTlogProof } from "./proof.js";

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
  let candidates: Uint8Array[];
  let leafIndex: number;
  try {
    candidates = candidateLeaves(record);
    const at = recordLeafIndex(record);
    if (at === undefined) return { ok: false, reason: "the record has no log index" };
    leafIndex = at;
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  const v = verifyTlogProof(proof, candidates, trust);
  if (!v.ok) return v;
  if (v.index !== leafIndex)
    return { ok: false, reason: `the proof is for entry ${v.index}, the record is entry ${leafIndex}` };
  const tenant = String(record.tenant_identity ?? record.origin_tenant ?? "").replace(/^tenant\//, "");
  if (!v.checkpoint.origin.endsWith(`/merklelogs/${tenant}/tlog`))
    return { ok: false, reason: `the record is in tenancy ${tenant}'s log, not in ${v.checkpoint.origin}` };
  return v;
}
