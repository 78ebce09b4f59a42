import { ApiError, quotaExceeded } from "../../errors/api-error.js";
import type { Queryable } from "../../store/drivers/db.js";
import { getTenancy } from "../../store/identity/tenancies.js";
import { consumeQuota } from "../../store/identity/usage.js";
import { type FreeEventRow, insertFreeEvents, type NewFreeEvent } from "../../store/records/free-events.js";
import type { Outcome } from "./group-commit.js";

/**
 * An asset-free event ready to be written, and whose quota it counts against: its tenancy's for
 * what a caller posts (an erasure's record included), none for the service's own record in a
 * tenancy's log (a key rotation, an accepted restore), which the tenancy did not ask for and a
 * full quota must not keep out of its log. Said on the record, so one group writes both kinds.
 */
export type PendingFreeEvent = NewFreeEvent & { chargedTo: "tenancy" | "service" };

/**
 * Writes a group's asset-free events: charges each tenancy's quota for its share of the group
 * (the service's own events are no one's share), then inserts what fits (with the erasable values
 * they carry). Each create takes its tenancy's usage-counter row lock; one transaction per request
 * held that lock through its own commit, so a tenancy's creates ran one WAL flush at a time. A
 * group takes it once.
 */
export async function writeFreeEventGroup(
  tx: Queryable,
  events: PendingFreeEvent[],
): Promise<Array<Outcome<FreeEventRow>>> {
  const refused = new Map<number, unknown>();
  const byTenant = new Map<string, number[]>();
  for (const [i, e] of events.entries()) {
    if (e.chargedTo === "service") continue;
    const indexes = byTenant.get(e.tenant_id);
    if (indexes) indexes.push(i);
    else byTenant.set(e.tenant_id, [i]);
  }
  for (const [tenantId, indexes] of byTenant) {
    const limit = (await getTenancy(tx, tenantId))?.quotas.asset_free_events;
    const refusal = () =>
      limit === undefined
        ? new ApiError("internal", "usage counter failed")
        : quotaExceeded("asset-free events", limit);
    if (await consumeQuota(tx, tenantId, "asset_free_events", indexes.length, limit)) continue;
    // The whole share does not fit: admit events one by one, in arrival order, until one does not.
    let full = false;
    for (const i of indexes) {
      if (!full && (await consumeQuota(tx, tenantId, "asset_free_events", 1, limit))) continue;
      full = true;
      refused.set(i, refusal());
    }
  }
  const admitted = events.filter((_, i) => !refused.has(i));
  const rows = await insertFreeEvents(tx, admitted);
  let next = 0;
  return events.map((_, i) => {
    if (refused.has(i)) return { error: refused.get(i) };
    return { row: rows[next++] as FreeEventRow };
  });
}
