import type { Ctx } from "../context.js";
import { notFound } from "../core/api/api-error.js";
import {
  type AssetEventRow,
  countAssetEvents,
  EVENT_STATUS_SQL,
  selectAssetEvents,
} from "../store/asset-events.js";
import { ASSET_STATUS_SQL, type AssetRow, countAssets, getAsset, selectAssets } from "../store/assets.js";
import { type AssetOut, assetOut, type EventOut, eventOut, type Face } from "../store/record-json.js";
import { estimateWhere, Where } from "../store/sql.js";
import { type AccessView, canReadEvent, projectAttributes } from "./access-view.js";
import {
  addAttributeFilters,
  CONFIRMATION_STATUSES,
  enumList,
  enumParam,
  PROOF_MECHANISMS,
  TRUST_ORDER,
  timeParam,
} from "./list-query.js";

/** A page of a list, with the count when asked or when the first page needs the result limit. */
export interface ListPage<T> {
  items: T[];
  lastSeq: number | undefined;
  more: boolean;
  total: number | undefined;
}

export interface ListRequest {
  pairs: Array<[string, string]>;
  pageSize: number;
  cursor: number;
  firstPage: boolean;
  wantCount: boolean;
}

/**
 * The total for the count header and the 206 result limit. Asked for (`x-request-total-count`),
 * it is exact; otherwise a capped count finds out cheaply whether the limit is passed, and past
 * it the planner's estimate stands in (the interface calls that total approximate) rather than
 * counting a million rows on every first page.
 */
async function totalFor(
  req: ListRequest,
  resultLimit: number,
  count: (cap?: number) => Promise<number>,
  estimate: () => Promise<number>,
) {
  if (req.wantCount) return count();
  if (!req.firstPage) return undefined;
  const capped = await count(resultLimit + 1);
  return capped > resultLimit ? Math.max(capped, await estimate()) : capped;
}

/** Assets the caller may see, filtered as the interface lists, newest first. */
export async function listAssets(
  ctx: Ctx,
  view: AccessView,
  req: ListRequest,
  face: Face = "assets",
): Promise<ListPage<AssetOut>> {
  const w = new Where();
  view.restrictAssets(w);
  addAttributeFilters(w, req.pairs, { attributes: "attributes" });
  const pm = enumParam(req.pairs, "proof_mechanism", PROOF_MECHANISMS);
  if (pm) w.and(`proof_mechanism = ${w.p(pm)}`);
  const tracked = enumParam(req.pairs, "tracked", ["TRACKED", "NOT_TRACKED", "ANY"] as const) ?? "TRACKED";
  if (tracked !== "ANY") w.and(`tracked = ${w.p(tracked)}`);
  const statuses = enumList(req.pairs, "confirmation_status", CONFIRMATION_STATUSES);
  if (statuses.length) w.and(`${ASSET_STATUS_SQL} = any(${w.p(statuses)}::text[])`);
  const rows = await selectAssets(ctx.db, w.sql, w.params, { before: req.cursor, limit: req.pageSize + 1 });
  const more = rows.length > req.pageSize;
  const page = rows.slice(0, req.pageSize);
  const items = page.flatMap((a) => {
    const g = view.grant(a);
    return g ? [assetOut(a, projectAttributes(a.attributes, g), face)] : [];
  });
  const total = await totalFor(
    req,
    ctx.config.resultLimit,
    (cap) => countAssets(ctx.db, w.sql, w.params, cap),
    () => estimateWhere(ctx.db, "assets", w.sql, w.params),
  );
  return { items, lastSeq: page.at(-1)?.seq, more, total };
}

function eventFilters(w: Where, pairs: Array<[string, string]>): boolean {
  addAttributeFilters(w, pairs, {
    event_attributes: "event_attributes",
    asset_attributes: "asset_attributes",
    principal_declared: "principal_declared",
  });
  const statuses = enumList(pairs, "confirmation_status", CONFIRMATION_STATUSES);
  if (statuses.length) w.and(`${EVENT_STATUS_SQL} = any(${w.p(statuses)}::text[])`);
  const trust = enumParam(pairs, "minimum_trust", TRUST_ORDER);
  if (trust)
    w.and(`${EVENT_STATUS_SQL} = any(${w.p(TRUST_ORDER.slice(TRUST_ORDER.indexOf(trust)))}::text[])`);
  const pm = enumParam(pairs, "proof_mechanism", PROOF_MECHANISMS);
  if (pm) w.and(`proof_mechanism = ${w.p(pm)}`);
  const since = timeParam(pairs, "timestamp_accepted_since");
  if (since) w.and(`timestamp_accepted >= ${w.p(since)}`);
  const before = timeParam(pairs, "timestamp_accepted_before");
  if (before) w.and(`timestamp_accepted < ${w.p(before)}`);
  const order = enumParam(pairs, "order_by", ["SIMPLEHASHV1"] as const);
  return order === "SIMPLEHASHV1";
}

/** Events of one asset (or of all, `assetId` undefined) that the caller may read. */
export async function listAssetEvents(
  ctx: Ctx,
  view: AccessView,
  assetId: string | undefined,
  req: ListRequest,
  face: Face = "assets",
): Promise<ListPage<EventOut>> {
  const w = new Where();
  const assets = new Map<string, AssetRow | undefined>();
  if (assetId) {
    const asset = await getAsset(ctx.db, assetId);
    if (!asset || !view.grant(asset)) throw notFound("asset");
    assets.set(asset.id, asset);
    w.and(`asset_id = ${w.p(assetId)}`);
    if (!view.whole) view.restrictEvents(w);
  } else view.restrictEvents(w);
  const ascending = eventFilters(w, req.pairs);
  const rows = await selectAssetEvents(ctx.db, w.sql, w.params, {
    cursor: req.cursor,
    limit: req.pageSize + 1,
    ascending,
  });
  const more = rows.length > req.pageSize;
  const page = rows.slice(0, req.pageSize);
  const items = view.whole
    ? page.map((e) => eventOut(e, face))
    : await projectEvents(ctx, view, page, assets, face);
  const total = await totalFor(
    req,
    ctx.config.resultLimit,
    (cap) => countAssetEvents(ctx.db, w.sql, w.params, cap),
    () => estimateWhere(ctx.db, "asset_events", w.sql, w.params),
  );
  return { items, lastSeq: page.at(-1)?.seq, more, total };
}

async function projectEvents(
  ctx: Ctx,
  view: AccessView,
  page: AssetEventRow[],
  assets: Map<string, AssetRow | undefined>,
  face: Face,
) {
  const out: EventOut[] = [];
  for (const e of page) {
    if (!assets.has(e.asset_id)) assets.set(e.asset_id, await getAsset(ctx.db, e.asset_id));
    const a = assets.get(e.asset_id);
    const g = a && view.grant(a);
    if (g && canReadEvent(e.event_attributes, g))
      out.push(eventOut(e, face, projectAttributes(e.asset_attributes, g)));
  }
  return out;
}
