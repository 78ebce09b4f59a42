import type { Ctx } from "../../context.js";
import { uncommittedSince, unwitnessedSince, type WaitingSince } from "../../store/ledger/waiting-work.js";

/** How long one log's oldest waiting work has waited, in seconds. */
export interface LogWait {
  tenant_id: string;
  seconds: number;
}

const ages = (rows: WaitingSince[], now: number): LogWait[] =>
  // A clock stepped back reads as no wait, never a negative one.
  rows.map((r) => ({ tenant_id: r.tenant_id, seconds: Math.max(0, (now - r.since_ms) / 1000) }));

/**
 * What the operator's alerts watch (deploy/prometheus/alerts.yml), read from the database so that
 * any API process reports it wherever the workers run: each log's oldest record the committer has
 * not committed, and, with witnesses configured, its oldest checkpoint no quorum has cosigned
 * (without witnesses every checkpoint is witnessed by definition, and earlier unwitnessed ones
 * are left from a configuration since changed).
 */
export async function waitingWork(
  ctx: Pick<Ctx, "db" | "config">,
  now = Date.now(),
): Promise<{ uncommitted: LogWait[]; unwitnessed: LogWait[] }> {
  const uncommitted = ages(await uncommittedSince(ctx.db), now);
  const unwitnessed = ctx.config.witnessQuorum > 0 ? ages(await unwitnessedSince(ctx.db), now) : [];
  return { uncommitted, unwitnessed };
}
