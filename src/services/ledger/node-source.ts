import type { Ctx } from "../../context.js";
import type { NodeSource } from "../../store/archive/period-archive.js";

/**
 * Where proofs read log nodes: the reads a replica may serve (nodes of sealed entries never change,
 * and a replica is used only once it has replayed what the primary flushed), and for nodes a closed
 * period's drop removed, the archive in the blob store.
 */
export function readNodeSource(ctx: Pick<Ctx, "reads" | "blobs">): NodeSource {
  return { db: ctx.reads, blobs: ctx.blobs };
}
