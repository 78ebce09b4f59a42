import type { Ctx } from "../context.js";
import { lockLog } from "../store/ledger/ledger.js";
import { latestCheckpoint } from "../store/ledger/tlog-checkpoints.js";
import { logsWithIndexBehind } from "../store/ledger/vindex.js";
import type { Ed25519Signing } from "../vindex/output-log.js";
import type { CheckpointKeys } from "./checkpoint.js";
import { loadSealKeys } from "./seal-keys.js";

/**
 * Revises the index of every log it lags, up to the log's newest checkpoint (verified), where no
 * seal would: a log with no new records after its index was refused and put back, or restarted
 * mid-way. Each under the log's lock, as a seal's revision is, and never for a held log.
 */
export async function catchUpIndexes(ctx: Ctx, checkpointKeys: CheckpointKeys): Promise<void> {
  const behind = await logsWithIndexBehind(ctx.db);
  if (behind.length === 0) return;
  const { checkpoint } = await loadSealKeys(ctx, checkpointKeys);
  for (const tenantId of behind) {
    if (ctx.logGuard.isHeld(tenantId) || ctx.vindex.writer.failing(tenantId)) continue;
    // One log's fault (a checkpoint whose signature does not verify: refused and logged) is that
    // log's: the others are caught up on.
    await catchUp(ctx, tenantId, checkpoint.signing.ed25519).catch((err: unknown) =>
      ctx.log.warn({ err, log: `tenant/${tenantId}` }, "the index was not caught up"),
    );
  }
}

async function catchUp(ctx: Ctx, tenantId: string, keys: Ed25519Signing): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await lockLog(tx, tenantId);
    const cp = await latestCheckpoint(tx, tenantId);
    if (!cp) return;
    const root = await ctx.logGuard.basis.checkpointRoot("index_checkpoint", cp);
    await ctx.vindex.writer.revise(
      tx,
      tenantId,
      { origin: cp.origin, size: cp.size, root },
      keys,
      ctx.logGuard.basis,
    );
  });
}
