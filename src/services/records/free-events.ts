import type { Ctx, Principal } from "../../context.js";
import { uuid7 } from "../../core/node/uuid7.js";
import { parseODataFilter } from "../../core/odata/index.js";
import { badRequest, forbidden, notFound } from "../../errors/api-error.js";
import { freeEventRecord, freeEventSearchRecord } from "../../formats/record/free-event.js";
import { freeEventSearch, getFreeEvent } from "../../store/records/free-events.js";
import type { PendingFreeEvent } from "../write/free-event-group.js";
import { checkLookupValues, validateAttributes, withCanonicalSubject } from "./attributes.js";
import { commitErasableMap, erasurePolicy } from "./erasable.js";

const FREE_EVENT_MAX_BYTES = 64 * 1024;

export interface FreeEventInput {
  attributes?: Record<string, unknown> | undefined;
  trails?: string[] | undefined;
  event_type?: string | undefined;
  /** Attributes to commit by a salted hash besides the tenancy's policy (docs/vcon-lifecycle.md, §4). */
  erasable_attributes?: string[] | undefined;
}

// Asset-free events are not bound to an asset that a policy could match: administrators write and read them.
function requireAdmin(p: Principal): void {
  if (!p.isAdmin) throw forbidden("asset-free events need administrator rights in this tenancy");
}

/**
 * Stores an asset-free event in the caller's log (STORED), within the 64 KB and quota limits. Its
 * erasable attributes (the tenancy's policy, and its own `erasable_attributes`) are committed by a
 * salted hash, as an asset event's are; a registered signed statement's never are (its bytes,
 * signed by its issuer, hold them).
 */
export async function createFreeEvent(
  ctx: Pick<Ctx, "writePath" | "db" | "caches">,
  p: Principal,
  input: FreeEventInput,
  bodyBytes: number,
  statement?: Uint8Array,
) {
  requireAdmin(p);
  const policy = statement ? NO_POLICY : erasurePolicy(ctx, p.tenantId);
  const checked = checkFreeEvent(
    p,
    input,
    bodyBytes,
    policy instanceof Promise ? await policy : policy,
    statement,
  );
  const row = await ctx.writePath.writeFreeEvent(checked);
  // Its erasable values, if it has any, came back with it: the record discloses them, with no read.
  return freeEventRecord(row);
}

/** A registered statement's attributes are its issuer's: no policy of ours commits any of them. */
const NO_POLICY: readonly string[] = Object.freeze([]);

/**
 * An asset-free event checked and ready to write, under the tenancy's erasure `policy`: a pure
 * check, no I/O. Its erasable values ride on it into its group's transaction (`createFreeEvent`),
 * or an erasure's alongside the values it deletes, so a refused event leaves none.
 */
export function checkFreeEvent(
  p: Principal,
  input: FreeEventInput,
  bodyBytes: number,
  policy: readonly string[],
  statement?: Uint8Array,
): PendingFreeEvent {
  requireAdmin(p);
  if (bodyBytes > FREE_EVENT_MAX_BYTES)
    throw badRequest(`asset-free event requests are limited to ${FREE_EVENT_MAX_BYTES} bytes`);
  // A registered statement's attributes are its issuer's signed claims: kept as signed.
  if (!statement) input = { ...input, attributes: withCanonicalSubject(input.attributes) };
  validateAttributes("attributes", input.attributes ?? {});
  checkLookupValues("attributes", input.attributes ?? {}, ["subject", "scitt_issuer", "payload"]);
  for (const t of input.trails ?? []) if (t === "") throw badRequest("trails must not contain empty strings");
  const committed = statement
    ? { attributes: input.attributes ?? {}, values: undefined }
    : commitErasableMap(policy, "attributes", input.attributes ?? {}, input.erasable_attributes);
  const createdAt = Date.now();
  return {
    id: uuid7(createdAt),
    tenant_id: p.tenantId,
    attributes: committed.attributes,
    trails: input.trails ?? [],
    event_type: input.event_type ?? "",
    created_by: p.subject,
    created_at: createdAt,
    statement,
    erasables: committed.values,
    chargedTo: "tenancy",
  };
}

export async function readFreeEvent(ctx: Pick<Ctx, "db">, p: Principal, id: string) {
  requireAdmin(p);
  const row = await getFreeEvent(ctx.db, p.tenantId, id, { erasables: true });
  if (!row) throw notFound("event");
  return freeEventRecord(row);
}

const SEARCH_MAX_TOP = 50;

/** POST /archivist/v1/events/search: an OData filter parsed to an AST and compiled to parameterised SQL. */
export async function searchEvents(
  ctx: Pick<Ctx, "db" | "caches">,
  p: Principal,
  q: { filter?: string | undefined; top?: number | undefined; skip?: number | undefined },
) {
  requireAdmin(p);
  const top = q.top ?? SEARCH_MAX_TOP;
  if (!Number.isInteger(top) || top < 1 || top > SEARCH_MAX_TOP)
    throw badRequest(`top must be an integer from 1 to ${SEARCH_MAX_TOP}`);
  const skip = q.skip ?? 0;
  if (!Number.isInteger(skip) || skip < 0) throw badRequest("skip must be a non-negative integer");
  const filter = q.filter && q.filter.trim() !== "" ? parseODataFilter(q.filter) : undefined;
  const { rows, total } = await freeEventSearch(ctx.db, ctx.caches.commonFilters, {
    tenantId: p.tenantId,
    filter,
    skip,
    top,
  });
  return { events: rows.map(freeEventSearchRecord), total };
}
