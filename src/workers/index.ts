import type { Ctx } from "../context.js";
import { logsToSeal } from "../store/seals.js";
import { validatorAddress } from "../store/validator.js";
import { anchorOnce } from "./anchor.js";
import { Committer } from "./committer.js";
import { Periodic } from "./periodic.js";
import { scanBatch } from "./scanner.js";
import { sealLog } from "./seal-log.js";

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

/** Starts the committer, sealer, anchorer and scanner (or none, for `serve --no-workers`). */
export function startWorkers(ctx: Ctx, opts: { none?: boolean } = {}): Workers {
  const { db, log, config } = ctx;
  const committer = new Committer(db, log, config.commitMaxDelayMs);
  const sealer = new Periodic(
    "sealer",
    config.sealIntervalMs,
    async () => {
      const seal = await ctx.keys.get("seal", "ES256");
      for (const l of await logsToSeal(db)) {
        await db.transaction((tx) =>
          sealLog(tx, l.tenant_id, { kid: seal.kid, privateKey: seal.privateKey, issuer: config.baseUrl }),
        );
      }
    },
    log,
  );
  const anchorer = new Periodic(
    "anchorer",
    config.anchorIntervalMs,
    async () => {
      const miner = await validatorAddress(ctx.keys);
      await db.transaction((tx) => anchorOnce(tx, miner));
    },
    log,
  );
  const scanner = new Periodic("scanner", config.scanIntervalMs, () => scanBatch(ctx), log);
  const all = [sealer, anchorer, scanner];
  if (!opts.none) {
    committer.start();
    for (const p of all) p.start();
  }
  return {
    wakeCommit: (t) => {
      if (!opts.none) committer.wake(t);
    },
    ready: async () => undefined,
    flush: async () => {
      await committer.flushAll();
      await sealer.runOnce();
      await anchorer.runOnce();
    },
    stop: async () => {
      for (const p of all) await p.stop();
      await committer.stop();
    },
  };
}
