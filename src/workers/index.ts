import type { Ctx } from "../context.js";
import { validatorAddress } from "../keys/validator.js";
import { logsToSeal } from "../store/ledger/seals.js";
import { revisionIntervalMs } from "../vindex/index-writer.js";
import { anchorOnce } from "./anchor.js";
import { CheckpointKeys } from "./checkpoint.js";
import { Committer } from "./committer.js";
import { catchUpIndexes } from "./index-catch-up.js";
import { closeDuePeriods } from "./log-period.js";
import { Periodic } from "./periodic.js";
import { scanBatch } from "./scanner.js";
import { loadSealKeys } from "./seal-keys.js";
import { sealLog, signingLimit } from "./seal-log.js";
import { Witnessing } from "./witnessing.js";

/** The background workers of one process. */
export interface Workers {
  wakeCommit(tenantId: string): void;
  /** Resolves when the workers' dependencies answer (for /readyz). */
  ready(): Promise<void>;
  /** Runs the commit, seal and anchor steps once now (tests, CLI). */
  flush(): Promise<void>;
  /** Stops taking work and flushes what is in hand. */
  stop(): Promise<void>;
}

/**
 * Seals every log with entries past its checkpoint, unless held; true when one was sealed. Each
 * log in its own boundary: one log's fault (a refusal, its head lost) is that log's, the others
 * are sealed on (`LogGuard.failed`).
 */
async function sealDueLogs(ctx: Ctx, checkpointKeys: CheckpointKeys): Promise<boolean> {
  const { seal, checkpoint } = await loadSealKeys(ctx, checkpointKeys);
  let sealed = false;
  for (const l of await logsToSeal(ctx.db)) {
    if (ctx.logGuard.isHeld(l.tenant_id)) continue;
    try {
      // Read before the seal's transaction: the standby is not waited for under the log's lock.
      const upTo = await signingLimit(ctx.standby, l.tenant_id);
      if (upTo === "nothing") continue;
      const size = await ctx.logGuard.signing(l.tenant_id, () =>
        ctx.db.transaction((tx) => sealLog(tx, l.tenant_id, seal, checkpoint, ctx.logGuard, upTo)),
      );
      sealed ||= size !== undefined;
    } catch (err) {
      ctx.logGuard.failed(l.tenant_id, "seal", err);
    }
  }
  return sealed;
}

/** Anchors the newest seals, mined by the validator key. */
async function anchorNow(ctx: Ctx): Promise<void> {
  const miner = await validatorAddress(ctx.keys);
  await ctx.db.transaction((tx) => anchorOnce(tx, miner));
}

/** Closes the periods due by size or age, when either is configured (docs/scaling.md). */
async function closeConfiguredPeriods(ctx: Ctx, checkpointKeys: CheckpointKeys): Promise<void> {
  const { logPeriodEntries, logPeriodAgeMs } = ctx.config;
  if (logPeriodEntries <= 0 && logPeriodAgeMs <= 0) return;
  if ((await closeDuePeriods(ctx, await loadSealKeys(ctx, checkpointKeys))) > 0) ctx.wake.published();
}

/** The committer, over the log guard and handing the index the facts of what it appends. */
function committerOf(ctx: Ctx): Committer {
  // A held log's records stay STORED: nothing is appended over signed entries a restore lost.
  return new Committer(
    ctx.db,
    ctx.log,
    ctx.config.commitMaxDelayMs,
    ctx.writePath.handoff,
    undefined,
    (t) => ctx.logGuard.isHeld(t),
    (tx, t, size) => ctx.logGuard.mayAppend(tx, t, size),
    (t) => ctx.logGuard.signingUnderWay(t),
    ctx.vindex?.facts,
  );
}

/** Starts the committer, sealer, anchorer and scanner (or none, for `serve --no-workers`). */
export function startWorkers(
  ctx: Ctx,
  opts: {
    none?: boolean;
    /** Periodic work of the services the server composes in (a worker imports no service). */
    periodic?: Array<{ name: string; intervalMs: number; tick: () => Promise<void>; atStart?: boolean }>;
  } = {},
): Workers {
  const { db, log, config } = ctx;
  const committer = committerOf(ctx);
  const checkpointKeys = new CheckpointKeys();
  const sealer = new Periodic(
    "sealer",
    config.sealIntervalMs,
    async () => {
      const sealed = await sealDueLogs(ctx, checkpointKeys);
      if (sealed) ctx.wake.published();
      // A new checkpoint goes to the witnesses at once, not at their next tick.
      if (sealed && config.witnesses.length > 0) void witnessing.runOnce();
    },
    log,
  );
  const witnesses = new Witnessing(db, config.witnesses, config.witnessQuorum, log, ctx.blobs);
  const witnessing = new Periodic(
    "witnessing",
    config.sealIntervalMs,
    () => (config.witnesses.length > 0 ? witnesses.runOnce() : Promise.resolve()),
    log,
  );
  const anchorer = new Periodic("anchorer", config.anchorIntervalMs, () => anchorNow(ctx), log);
  const scanner = new Periodic("scanner", config.scanIntervalMs, () => scanBatch(ctx), log);
  // Periods close by size or age only when configured (docs/scaling.md); `archivist log close` always can.
  const periods = new Periodic(
    "periods",
    config.sealIntervalMs,
    () => closeConfiguredPeriods(ctx, checkpointKeys),
    log,
  );
  // An index behind its log where no seal comes to revise it (docs/complete-trails.md, "Durable").
  const indexer = new Periodic(
    "indexer",
    revisionIntervalMs(config.sealIntervalMs),
    () => catchUpIndexes(ctx, checkpointKeys),
    log,
  );
  const extra = (opts.periodic ?? []).map((p) => new Periodic(p.name, p.intervalMs, p.tick, log));
  const all = [sealer, anchorer, scanner, witnessing, periods, indexer, ...extra];
  if (!opts.none) {
    committer.start();
    for (const p of all) p.start();
    for (const [i, p] of (opts.periodic ?? []).entries()) if (p.atStart) void extra[i]?.runOnce();
  }
  return {
    wakeCommit: (t) => {
      if (!opts.none) committer.wake(t);
    },
    ready: async () => undefined,
    flush: async () => {
      await committer.flushAll();
      await sealer.runOnce();
      await indexer.runOnce(); // what the seal left to the index's interval
      await witnessing.runOnce();
      await anchorer.runOnce();
    },
    stop: async () => {
      for (const p of all) await p.stop();
      await committer.stop();
    },
  };
}
