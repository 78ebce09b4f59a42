import { randomUUID } from "node:crypto";
import type { Ctx, Principal } from "../context.js";
import { ApiError, badRequest, forbidden, notFound, quotaExceeded } from "../core/api/api-error.js";
import type { Queryable } from "../store/db.js";
import { type FreeEventRow, getFreeEvent, insertFreeEvent } from "../store/free-events.js";
import { getTenancy } from "../store/tenancies.js";
import { consumeQuota } from "../store/usage.js";
import { validateAttributes } from "./attributes.js";

export const FREE_EVENT_MAX_BYTES = 64 * 1024;

export interface FreeEventInput {
  attributes?: Record<string, unknown> | undefined;
  trails?: string[] | undefined;
  event_type?: string | undefined;
}

/** API shape of an asset-free event (`ledger_entry` added in search results). */
export function freeEventOut(r: FreeEventRow, withLedger = false) {
  const committed = r.mmr_index !== null;
  return {
    identity: `events/${r.id}`,
    attributes: r.attributes,
    trails: r.trails,
    event_type: r.event_type,
    origin_tenant: `tenant/${r.tenant_id}`,
    created_by: r.created_by,
    created_at: Number(r.created_at),
    confirmation_status: r.confirmation_status,
    merklelog_commit: { index: committed ? String(r.mmr_index) : "0", idtimestamp: r.idtimestamp ?? "" },
    ...(withLedger
      ? {
          ledger_entry: {
            index: committed ? String(r.mmr_index) : "",
            idtimestamp: r.idtimestamp ?? "",
            content_hash: r.content_hash ?? "",
            hash_schema: "eventsv1",
            log_id: `tenant/${r.tenant_id}`,
          },
        }
      : {}),
  };
}

// Asset-free events are not bound to an asset that a policy could match: administrators write and read them.
function requireAdmin(p: Principal): void {
  if (!p.isAdmin) throw forbidden("asset-free events need administrator rights in this tenancy");
}

/** Stores an asset-free event in the caller's log (STORED), within the 64 KB and quota limits. */
export async function createFreeEvent(
  ctx: Ctx,
  p: Principal,
  input: FreeEventInput,
  bodyBytes: number,
  statement?: Uint8Array,
) {
  requireAdmin(p);
  if (bodyBytes > FREE_EVENT_MAX_BYTES)
    throw badRequest(`asset-free event requests are limited to ${FREE_EVENT_MAX_BYTES} bytes`);
  validateAttributes("attributes", input.attributes ?? {});
  for (const t of input.trails ?? []) if (t === "") throw badRequest("trails must not contain empty strings");
  const row = await ctx.db.transaction((tx) => storeFreeEvent(tx, p, input, statement));
  ctx.wake.commit(p.tenantId);
  return freeEventOut(row);
}

async function storeFreeEvent(
  tx: Queryable,
  p: Principal,
  input: FreeEventInput,
  statement?: Uint8Array,
): Promise<FreeEventRow> {
  const limit = (await getTenancy(tx, p.tenantId))?.quotas.asset_free_events;
  if (!(await consumeQuota(tx, p.tenantId, "asset_free_events", 1, limit))) {
    throw limit === undefined
      ? new ApiError("internal", "usage counter failed")
      : quotaExceeded("asset-free events", limit);
  }
  return insertFreeEvent(
    tx,
    {
      id: randomUUID(),
      tenant_id: p.tenantId,
      attributes: input.attributes ?? {},
      trails: input.trails ?? [],
      event_type: input.event_type ?? "",
      created_by: p.subject,
      created_at: Date.now(),
    },
    statement,
  );
}

export async function readFreeEvent(ctx: Ctx, p: Principal, id: string) {
  requireAdmin(p);
  const row = await getFreeEvent(ctx.db, p.tenantId, id);
  if (!row) throw notFound("event");
  return freeEventOut(row);
}
