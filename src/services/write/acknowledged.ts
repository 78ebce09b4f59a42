import type { Ctx } from "../../context.js";
import { ApiError } from "../../errors/api-error.js";

/**
 * Before a write is answered as done: with a standby configured (DATABASE_STANDBY_URL), the
 * standby must have applied everything the primary committed so far, the write's own
 * transactions included, so a failover to it never loses a write answered 200. When it has not
 * within ARCHIVIST_STANDBY_WAIT_MS, the write is answered 503: it is stored on the primary, and
 * would be lost if the primary failed before the standby caught up (docs/scaling.md, "Failover").
 */
export async function untilOnStandby(ctx: Pick<Ctx, "standby">): Promise<void> {
  if (!ctx.standby || (await ctx.standby.applied())) return;
  throw new ApiError(
    "unavailable",
    "the write is stored on the primary database, but its standby has not applied it yet: it would be lost if the primary failed now. Read it back before sending it again",
    [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "NOT_ON_STANDBY" }],
  );
}
