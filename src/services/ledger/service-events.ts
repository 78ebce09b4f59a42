import type { Ctx } from "../../context.js";
import { uuid7 } from "../../core/node/uuid7.js";
import { freeEventRecord } from "../../formats/record/free-event.js";

/** Who recorded a service event: the service itself, not a caller. */
const SERVICE_EVENT_CREATOR = "archivist";

/** Where a tenancy's administrators find the service's own events (a trail of asset-free events). */
const SERVICE_EVENT_TRAIL = "archivist/keys";

/**
 * An asset-free event the service records in a tenancy's log about itself (a key rotation, an
 * accepted restore): committed and sealed like any record, so a verifier learns from the log,
 * under a checkpoint, which key was valid when and what an operator accepted. Written as every
 * record is, through the write path (one group write, `writeRecords`), but charged to no quota:
 * the tenancy did not ask for it. Its commit wakes the tenancy's committer where this process has
 * one; the operator's commands run without one, and a running service's sweep finds it there.
 */
export async function recordServiceEvent(
  ctx: Pick<Ctx, "writePath">,
  tenantId: string,
  attributes: Record<string, string>,
): Promise<Record<string, unknown>> {
  const createdAt = Date.now();
  // Named as every record is (version 7: its key appends to the table's B-tree).
  const row = await ctx.writePath.writeFreeEvent({
    id: uuid7(createdAt),
    tenant_id: tenantId,
    attributes,
    trails: [SERVICE_EVENT_TRAIL],
    event_type: "",
    created_by: SERVICE_EVENT_CREATOR,
    created_at: createdAt,
    chargedTo: "service",
  });
  return freeEventRecord(row);
}
