import type { Ctx } from "../context.js";
import { type CheckpointKey, CheckpointKeys, TLOG_KEY, TLOG_ML_DSA_KEY } from "./checkpoint.js";
import type { SealKey } from "./seal-log.js";

/** What a seal signs with: the seal key and the log keys (current, then retired ones still co-signing). */
export interface SealKeys {
  seal: SealKey;
  checkpoint: CheckpointKey;
}

/**
 * The keys a seal signs with, loaded from the keyring now (the keyring caches them; the log keys'
 * derived forms are kept by `checkpointKeys` while they stay the same).
 */
export async function loadSealKeys(
  ctx: Pick<Ctx, "keys" | "baseUrl" | "config"> & Partial<Pick<Ctx, "vindex">>,
  checkpointKeys: CheckpointKeys = new CheckpointKeys(),
): Promise<SealKeys> {
  const seal = await ctx.keys.get("seal", "ES256");
  // The current log keys, and the retired ones still co-signing after a rotation (docs/keys.md).
  const tlog = [await ctx.keys.get(TLOG_KEY, "Ed25519"), ...(await ctx.keys.cosigners(TLOG_KEY, "Ed25519"))];
  const seeds = [
    await ctx.keys.seed(TLOG_ML_DSA_KEY, "ML-DSA-44"),
    ...(await ctx.keys.cosigningSeeds(TLOG_ML_DSA_KEY, "ML-DSA-44")),
  ];
  return {
    seal: { key: seal, issuer: ctx.baseUrl },
    checkpoint: {
      signing: checkpointKeys.of(tlog, seeds),
      baseUrl: ctx.baseUrl,
      witnessed: ctx.config.witnessQuorum === 0,
      index: ctx.vindex?.writer,
    },
  };
}
