import type { Ctx } from "../../context.js";
import { consistencyProofIndices } from "../../core/log/mmr-proof.js";
import * as treeProof from "../../core/log/tree-proof.js";
import { badRequest } from "../../errors/api-error.js";
import { isValidMmrSize, peakIndices } from "../../formats/mmr/indices.js";
import * as tree from "../../formats/rfc9162/index.js";
import { logSize } from "../../store/ledger/ledger.js";
import { tlogSize } from "../../store/ledger/tlog-nodes.js";
import { readNodeSource } from "./node-source.js";
import { nodes, treeNodes } from "./proofs.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** The draft's consistency proof between two complete sizes: one path per old peak into the new MMR. */
export async function consistency(
  ctx: Pick<Ctx, "blobs" | "reads">,
  tenantId: string,
  from: number,
  to: number,
) {
  if (
    !isValidMmrSize(from) ||
    !isValidMmrSize(to) ||
    from < 1 ||
    from > to ||
    to > (await logSize(ctx.reads, tenantId))
  )
    throw badRequest("from and to must be complete MMR sizes with 0 < from <= to <= the log's size");
  const paths = consistencyProofIndices(from, to);
  const get = await nodes(readNodeSource(ctx), tenantId, [
    ...peakIndices(from),
    ...peakIndices(to),
    ...paths.flat(),
  ]);
  return {
    from,
    to,
    peaks_from: peakIndices(from).map(get).map(hex),
    peaks_to: peakIndices(to).map(get).map(hex),
    paths: paths.map((p) => p.map(get).map(hex)),
  };
}

/** RFC 9162 §2.1.4 consistency proof between two tree sizes (0 < from ≤ to ≤ the tree's size). */
export async function treeConsistency(
  ctx: Pick<Ctx, "blobs" | "reads">,
  tenantId: string,
  from: number,
  to: number,
) {
  const size = await tlogSize(ctx.reads, tenantId);
  if (!Number.isSafeInteger(from) || from < 1 || from > to || to > size)
    throw badRequest("from and to must be tree sizes with 0 < from <= to <= the tree's size");
  const get = await treeNodes(readNodeSource(ctx), tenantId, [
    ...treeProof.consistencyProofNodes(from, to),
    ...treeProof.rootNodes(from),
    ...treeProof.rootNodes(to),
  ]);
  return {
    profile: "rfc9162" as const,
    from,
    to,
    root_from: hex(tree.treeRoot(from, get)),
    root_to: hex(tree.treeRoot(to, get)),
    proof: treeProof.consistencyProof(from, to, get).map(hex),
  };
}
