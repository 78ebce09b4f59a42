import type { Ctx } from "../../context.js";
import { ApiError, badRequest } from "../../errors/api-error.js";
import { isValidMmrSize, mmrIndexOfLeaf } from "../../formats/mmr/indices.js";
import { type EntryRow, entryAt, logSize } from "../../store/ledger/ledger.js";
import type { SealRow } from "../../store/ledger/seals.js";
import { readNodeSource } from "./node-source.js";
import { inclusion, sealFor } from "./proofs.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** The merkle-log entry at MMR position `mmrIndex` with its path in the latest (or a given) sealed MMR. */
export async function logEntry(
  ctx: Pick<Ctx, "blobs" | "reads">,
  tenantId: string,
  mmrIndex: number,
  mmrSize?: number,
  identity?: (e: EntryRow) => Promise<string>,
) {
  const entry = await entryAt(ctx.reads, tenantId, mmrIndex);
  if (!entry)
    throw new ApiError(
      "not_found",
      `no log entry at MMR position ${mmrIndex} (an interior node, or beyond the log)`,
    );
  return entryWithPath(ctx, tenantId, entry, mmrSize, identity);
}

/**
 * Log entry `leafIndex` (the leaf index checkpoints, tiles and tlog-proofs count) with its path,
 * as `logEntry` gives it. Both trees append the same leaves in the same order, so leaf e sits at
 * MMR position 2e − popcount(e); the stored leaf index is checked all the same.
 */
export async function logEntryAtLeaf(
  ctx: Pick<Ctx, "blobs" | "reads">,
  tenantId: string,
  leafIndex: number,
  mmrSize?: number,
  identity?: (e: EntryRow) => Promise<string>,
) {
  const missing = () => new ApiError("not_found", `no log entry ${leafIndex} in the log`);
  // Beyond half the safe integers, the leaf's MMR position is not one: no log reaches it.
  if (leafIndex > Number.MAX_SAFE_INTEGER / 2) throw missing();
  const entry = await entryAt(ctx.reads, tenantId, mmrIndexOfLeaf(leafIndex));
  if (!entry || entry.leaf_index !== leafIndex) throw missing();
  return entryWithPath(ctx, tenantId, entry, mmrSize, identity);
}

/** An entry's answer: both its numbers, its leaf, and its path in the sealed MMR of `mmrSize` (else its first seal's). */
async function entryWithPath(
  ctx: Pick<Ctx, "blobs" | "reads">,
  tenantId: string,
  entry: EntryRow,
  mmrSize: number | undefined,
  identity: ((e: EntryRow) => Promise<string>) | undefined,
) {
  const mmrIndex = entry.mmr_index;
  const seal = mmrSize === undefined ? await sealFor(ctx.reads, tenantId, entry) : undefined;
  const size = mmrSize ?? (seal as SealRow).mmr_size;
  if (!isValidMmrSize(size) || size > (await logSize(ctx.reads, tenantId)) || size <= mmrIndex)
    throw badRequest("mmr_size must be a complete MMR size covering the entry");
  const { path, peak } = await inclusion(readNodeSource(ctx), tenantId, entry, size);
  return {
    mmr_index: entry.mmr_index,
    leaf_index: entry.leaf_index,
    leaf: hex(entry.leaf),
    identity: identity ? await identity(entry) : "",
    idtimestamp: entry.idtimestamp,
    mmr_size: size,
    path: path.map(hex),
    peak: hex(peak),
  };
}
