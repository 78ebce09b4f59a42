import type { Ctx } from "../../context.js";
import { ASSET_FILTER_PREFIXES, EVENT_FILTER_PREFIXES } from "../../core/filters/list-spec.js";
import { notFound } from "../../errors/api-error.js";
import { type AssetRecord, assetRecord } from "../../formats/record/asset.js";
import { type AssetEventRecord, assetEventRecord } from "../../formats/record/asset-event.js";
import type { Face } from "../../formats/record/face.js";
import type { AssetEventRow } from "../../store/records/asset-events.js";
import { type AssetRow, getAsset } from "../../store/records/assets.js";
import { assetEventList, assetList } from "../../store/records/record-lists.js";
import { type AccessView, canReadEvent, projectAttributes } from "../access/access-view.js";
import {
  CONFIRMATION_STATUSES,
  enumList,
  enumParam,
  listFilters,
  PROOF_MECHANISMS,
  TRUST_ORDER,
  timeParam,
} from "./list-query.js";

/** A filtered collection as the store serves it: keyset pages and the exact count. */
export type { RowSource } from "../../store/query/row-source.js";

/** A page of a list, with the count when asked or when the first page needs the result limit. */
export interface ListPage<T> {
  items: T[];
  lastSeq: number | undefined;
  more: boolean;
  total: number | undefined;
}

/** The page of a list whose value filters match nothing; its total as `totalFor` would give it. */
function emptyPage(req: ListRequest): ListPage<never> {
  const total = req.firstPage || req.wantCount ? 0 : undefined;
  return { items: [], lastSeq: undefined, more: false, total };
}

export interface ListRequest {
  pairs: Array<[string, string]>;
  pageSize: number;
  cursor: number;
  firstPage: boolean;
  wantCount: boolean;
}

// How far beyond the result limit both estimates must be before the first page trusts them.
const ESTIMATE_MARGIN = 2;

/**
 * How many matches a page's rows imply for the whole list: rows are numbered by `seq` across the
 * table, so `n` matches among the newest `span` rows suggest `n × newest / span` in all (on a later
 * page, that many at or below the page, fewer than the list holds). Ascending pages start from the
 * oldest row and say nothing about how many rows follow.
 */
function spanEstimate(seqs: number[], descending: boolean): number {
  const newest = seqs[0];
  const oldest = seqs.at(-1);
  if (!descending || newest === undefined || oldest === undefined) return 0;
  return (seqs.length * newest) / (newest - oldest + 1);
}

/**
 * The total for the count header and the 206 result limit, given the `seq`s of the rows the page
 * query fetched (up to page size + 1). A first page that holds every match knows its total exactly.
 * Later pages give a total only when asked (`x-request-total-count`). The total is exact up to
 * the result limit; past it the interface calls it approximate ("the server's best available
 * approximation", 206), asked for or not. So when the planner's estimate and the page's own
 * density both put the total well past the limit, the planner's estimate stands; else a count
 * capped just past the limit decides. That capped count has to test every row until it finds
 * limit + 1 matches (~100,000 rows for a filter matching 1 in 10, about 50 ms with everything
 * cached), and an exact count of 100,000 matches spread over a million rows ~300-700 ms, which no
 * page can afford for broad filters. Where the page's density alone shows the planner would not
 * be trusted (most lists: few matches, or an ascending page), the count is made without asking it.
 */
export async function totalFor(
  req: ListRequest,
  resultLimit: number,
  fetched: { seqs: number[]; descending: boolean },
  count: (cap: number) => Promise<number>,
  estimate: () => Promise<number>,
): Promise<number | undefined> {
  if (req.firstPage && fetched.seqs.length <= req.pageSize) return fetched.seqs.length;
  if (!req.firstPage && !req.wantCount) return undefined;
  const sure = resultLimit * ESTIMATE_MARGIN;
  // The page's density first (it costs nothing): the planner is asked (an EXPLAIN, a round trip
  // and a plan) only when it could be trusted, or when the capped count is past the limit.
  const planned = spanEstimate(fetched.seqs, fetched.descending) > sure ? await estimate() : undefined;
  if (planned !== undefined && planned > sure) return planned;
  const capped = await count(resultLimit + 1);
  if (capped <= resultLimit) return capped;
  return Math.max(capped, planned ?? (await estimate()));
}

/** Assets the caller may see, filtered as the interface lists, newest first. */
export async function listAssets(
  ctx: Pick<Ctx, "reads" | "caches" | "config">,
  view: AccessView,
  req: ListRequest,
  face: Face = "assets",
): Promise<ListPage<AssetRecord>> {
  // Parsed in this order so that the first bad parameter is the one refused.
  const filters = listFilters(req.pairs, ASSET_FILTER_PREFIXES, "attributes", view);
  const proofMechanism = enumParam(req.pairs, "proof_mechanism", PROOF_MECHANISMS);
  const tracked = enumParam(req.pairs, "tracked", ["TRACKED", "NOT_TRACKED", "ANY"] as const) ?? "TRACKED";
  const list = await assetList(ctx.reads, ctx.caches.commonFilters, {
    access: view.restriction,
    filters,
    proofMechanism,
    tracked: tracked === "ANY" ? undefined : tracked,
    statuses: enumList(req.pairs, "confirmation_status", CONFIRMATION_STATUSES),
    page: { cursor: req.cursor, limit: req.pageSize + 1 },
  });
  if (list === null) return emptyPage(req);
  const rows = await list.page();
  const more = rows.length > req.pageSize;
  const page = rows.slice(0, req.pageSize);
  const items = page.flatMap((a) => {
    const g = view.grant(a);
    return g ? [assetRecord(a, projectAttributes(a.attributes, g), face)] : [];
  });
  const total = await totalFor(
    req,
    ctx.config.resultLimit,
    { seqs: rows.map((a) => Number(a.seq)), descending: true },
    list.count,
    list.estimate,
  );
  return { items, lastSeq: page.at(-1)?.seq, more, total };
}

/** Events of one asset (or of all, `assetId` undefined) that the caller may read. */
export async function listAssetEvents(
  ctx: Pick<Ctx, "reads" | "caches" | "config">,
  view: AccessView,
  assetId: string | undefined,
  req: ListRequest,
  face: Face = "assets",
): Promise<ListPage<AssetEventRecord>> {
  const assets = new Map<string, AssetRow | undefined>();
  if (assetId) {
    const asset = await getAsset(ctx.reads, assetId);
    if (!asset || !view.grant(asset)) throw notFound("asset");
    assets.set(asset.id, asset);
  }
  const pairs = req.pairs;
  const filters = listFilters(pairs, EVENT_FILTER_PREFIXES, "asset_attributes", view);
  const statuses = enumList(pairs, "confirmation_status", CONFIRMATION_STATUSES);
  const trust = enumParam(pairs, "minimum_trust", TRUST_ORDER);
  const proofMechanism = enumParam(pairs, "proof_mechanism", PROOF_MECHANISMS);
  const since = timeParam(pairs, "timestamp_accepted_since");
  const before = timeParam(pairs, "timestamp_accepted_before");
  const order =
    enumParam(pairs, "order_by", ["SIMPLEHASHV1"] as const) === "SIMPLEHASHV1" ? "oldest" : "newest";
  const list = await assetEventList(ctx.reads, ctx.caches.commonFilters, {
    // The one asset was read under the caller's grant: a whole view needs no more.
    access: assetId && view.whole ? { kind: "authorised" } : view.restriction,
    assetId,
    filters,
    statuses,
    trusted: trust ? TRUST_ORDER.slice(TRUST_ORDER.indexOf(trust)) : undefined,
    proofMechanism,
    since,
    before,
    order,
    page: { cursor: req.cursor, limit: req.pageSize + 1 },
  });
  if (list === null) return emptyPage(req);
  const rows = await list.page();
  const more = rows.length > req.pageSize;
  const page = rows.slice(0, req.pageSize);
  // The store read the page with its erasable values joined; a projection shows only its own.
  const items = view.whole
    ? page.map((e) => assetEventRecord(e, face))
    : await projectEvents(ctx, view, page, assets, face);
  const total = await totalFor(
    req,
    ctx.config.resultLimit,
    { seqs: rows.map((e) => Number(e.seq)), descending: order === "newest" },
    list.count,
    list.estimate,
  );
  return { items, lastSeq: page.at(-1)?.seq, more, total };
}

async function projectEvents(
  ctx: Pick<Ctx, "reads">,
  view: AccessView,
  page: AssetEventRow[],
  assets: Map<string, AssetRow | undefined>,
  face: Face,
) {
  const out: AssetEventRecord[] = [];
  for (const e of page) {
    if (!assets.has(e.asset_id)) assets.set(e.asset_id, await getAsset(ctx.reads, e.asset_id));
    const a = assets.get(e.asset_id);
    const g = a && view.grant(a);
    if (g && canReadEvent(e.event_attributes, g))
      out.push(assetEventRecord(e, face, projectAttributes(e.asset_attributes, g)));
  }
  return out;
}
