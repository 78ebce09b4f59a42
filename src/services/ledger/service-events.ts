import { randomUUID } from "node:crypto";
import type { Ctx } from "../../context.js";
import { freeEventRecord } from "../../formats/record/free-event.js";
import { insertFreeEvents } from "../../store/records/free-events.js";

/** Who recorded a service event: the service itself, not a caller. */
const SERVICE_EVENT_CREATOR = "archivist";

/** Where a tenancy's administrators find the service's own events (a trail of asset-free events). */
const SERVICE_EVENT_TRAIL = "archivist/keys";

/**
 * An asset-free event the service records in a tenancy's log about itself (a key rotation, an
 * accepted restore): committed and sealed like any record, so a verifier learns from the log,
 * under a checkpoint, which key was valid when and what an operator accepted. It is not charged to
 * the tenancy's quota. Stored now; the committer of a running service picks it up by its sweep.
 */
export async function recordServiceEvent(
  ctx: Pick<Ctx, "db">,
  tenantId: string,
  attributes: Record<string, string>,
): Promise<Record<string, unknown>> {
  const [row] = await ctx.db.transaction((tx) =>
    insertFreeEvents(tx, [
      {
        id: randomUUID(),
        tenant_id: tenantId,
        attributes,
        trails: [SERVICE_EVENT_TRAIL],
        event_type: "",
        created_by: SERVICE_EVENT_CREATOR,
        created_at: Date.now(),
      },
    ]),
  );
  if (!row) throw new Error("the service event was not stored");
  return freeEventRecord(row);
}
