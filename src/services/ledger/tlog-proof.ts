import type { Ctx } from "../../context.js";
import { formatProofExtra, formatTlogProof } from "../../core/log/tlog-format.js";
import * as treeProof from "../../core/log/tree-proof.js";
import { ApiError } from "../../errors/api-error.js";
import { entryOfRecord } from "../../store/ledger/ledger.js";
import { cosignaturesOf, publishedCheckpoint } from "../../store/ledger/tlog-checkpoints.js";
import { getStatement } from "../../store/records/free-events.js";
import { readNodeSource } from "./node-source.js";
import { leafOfRow, missingRefused, statementFollowsLog, treeNodes, treePathToSigned } from "./proofs.js";

const conflict = (message: string) => new ApiError("conflict", message);

/**
 * A record's c2sp.org/tlog-proof: its RFC 9162 inclusion in the tree of the log's published
 * checkpoint (the newest a witness quorum cosigned, as `checkpoint` serves it), that checkpoint
 * with its cosignatures, and as the (unauthenticated) extra data the record's identity and, for a
 * registered statement, the statement: its tree leaf is the payload's hash, and only the
 * statement ties the record's subject and issuer to it (so it is given only as its MMR leaf, under
 * a seal, commits to it). 409 while no published checkpoint (or, for a statement, no seal) covers
 * the record yet.
 */
export async function tlogProofFor(
  ctx: Pick<Ctx, "blobs" | "caches" | "reads" | "logGuard">,
  recordId: string,
  identity: string,
): Promise<string> {
  const entry = await entryOfRecord(ctx.reads, recordId);
  if (!entry) throw conflict("the record is not yet committed to the log; try again in a moment");
  const cp = await publishedCheckpoint(ctx.reads, entry.tenant_id);
  if (!cp || cp.size <= entry.leaf_index)
    throw conflict("the record is not yet in a published checkpoint; try again in a moment");
  const cosignatures = await cosignaturesOf(ctx.reads, entry.tenant_id, cp.size);
  // The path is served only when the stored leaf and path lead to the root the checkpoint signs.
  const basis = ctx.logGuard.basis;
  const root = await basis.checkpointRoot("tlog_proof", cp);
  const hash = await leafOfRow(ctx.reads, basis, "tlog_proof", entry);
  const get = await treeNodes(
    readNodeSource(ctx),
    entry.tenant_id,
    treeProof.inclusionProofNodes(entry.leaf_index, cp.size),
    missingRefused(basis, "tlog_proof", entry.tenant_id),
  );
  const statement = entry.kind === "event" ? await getStatement(ctx.reads, recordId) : undefined;
  // The tree leaf holds the payload alone: the statement is served only as the MMR leaf gives it.
  if (statement) await statementFollowsLog(ctx, recordId, statement, "tlog_proof");
  return formatTlogProof({
    extra: formatProofExtra({ identity, statement }),
    index: entry.leaf_index,
    path: treePathToSigned(basis, "tlog_proof", cp, root, { index: entry.leaf_index, hash }, get),
    checkpoint: `${cp.note}${cosignatures.map((c) => c.signature_line).join("")}`,
  });
}
