import { payloadLeafData } from "../ledger/tlog-leaf.js";
import { type ApiRecord, candidateLeaves } from "../verify/record.js";
import { type LogTrust, recordLeafIndex } from "./log-check.js";
import { type TlogProofVerdict, verifyTlogProof } from "./proof.js";

/**
 * Verifies a record's tlog-proof with nothing but the record's JSON and the log's trust: the
 * leaf data recomputed from the record (its MMR leaf, or a registered statement's payload hash),
 * the proof's index the record's leaf index, the checkpoint's origin the record's tenancy's log.
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
  const payload = (record.attributes as Record<string, unknown> | undefined)?.payload;
  if (typeof payload === "string" && /^([0-9a-f]{2})+$/i.test(payload))
    candidates.push(payloadLeafData(payload));
  const v = verifyTlogProof(proof, candidates, trust);
  if (!v.ok) return v;
  if (v.index !== leafIndex)
    return { ok: false, reason: `the proof is for entry ${v.index}, the record is entry ${leafIndex}` };
  const tenant = String(record.tenant_identity ?? record.origin_tenant ?? "").replace(/^tenant\//, "");
  if (tenant && !v.checkpoint.origin.endsWith(`/merklelogs/${tenant}/tlog`))
    return { ok: false, reason: `the record is in tenancy ${tenant}'s log, not in ${v.checkpoint.origin}` };
  return v;
}
