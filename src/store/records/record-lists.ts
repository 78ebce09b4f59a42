import type { AssetEventListSpec, AssetListSpec } from "../../core/filters/list-spec.js";
import type { Db, Queryable } from "../drivers/db.js";
import { countWhere, estimateWhere, inIndexOrder, pinnedSource, Where } from "../query/sql.js";
import { restrictRows } from "./access-sql.js";
import { type AssetEventRow, selectAssetEvents } from "./asset-events.js";
import { type AssetRow, selectAssets } from "./assets.js";
import { addListFilters } from "./attribute-sql.js";
import { withErasables } from "./erasable-values.js";
import { narrowedSource } from "./narrowed-source.js";
import { ASSET_LIST, EVENT_LIST, filterAssetEvents, filterAssets, ofAsset } from "./record-filters.js";
import { type Backlog, backlogOf, unsettledAssetSeqs, unsettledEventSeqs } from "./unsettled.js";

/** Up to this many records of the backlog, a list by an unsettled status is pinned to them. */
const BACKLOG_PINNED = 1_000;

/**
 * `from`, pinned to the backlog's rows when the list asks only for unsettled statuses and nothing
 * pinned it already: `null` when the backlog is empty (nothing can match).
 */
async function backlogSource(
  from: string,
  table: string,
  statuses: readonly string[],
  w: Where,
  seqsOf: (backlog: Backlog, cap: number) => Promise<string[] | undefined>,
): Promise<string | null> {
  const backlog = backlogOf(statuses);
  if (from !== table || !backlog) return from;
  const seqs = await seqsOf(backlog, BACKLOG_PINNED);
  if (!seqs) return from;
  return seqs.length === 0 ? null : pinnedSource(table, w.p(seqs));
}

/**
 * A record list compiled from its specification: its page, and what its total is made of (the
 * count of the same filter, capped, and the planner's estimate), all over the one WHERE clause,
 * so that a count never includes a row the page would not show.
 */
export interface RecordList<R> {
  /** The page the specification asks for. */
  page(): Promise<R[]>;
  /** How many rows match, stopping at `cap`. */
  count(cap: number): Promise<number>;
  /** The planner's estimate of how many rows match: an approximate total at index-lookup cost. */
  estimate(): Promise<number>;
}

/**
 * Assets as the list asks for them (access first, then attribute filters, then the scalar ones),
 * newest first; `null` when its value filters match no asset at all (`narrowedSource`).
 * `commonFilters` is the context's memory of value filters that match many rows.
 */
export async function assetList(
  db: Db,
  commonFilters: Map<string, number>,
  spec: AssetListSpec,
): Promise<RecordList<AssetRow> | null> {
  const w = new Where();
  restrictRows(w, "assets", spec.access);
  const byValue = addListFilters(w, spec.filters, ASSET_LIST);
  filterAssets(w, spec);
  const narrowed = await narrowedSource(db, commonFilters, ASSET_LIST.table, w, byValue);
  const from =
    narrowed &&
    (await backlogSource(narrowed, ASSET_LIST.table, spec.statuses, w, (b, cap) =>
      unsettledAssetSeqs(db, b, cap),
    ));
  if (!from) return null;
  return listOf(db, from, from === ASSET_LIST.table && !byValue, w, (q) =>
    selectAssets(q, w.sql, w.params, { before: spec.page.cursor, limit: spec.page.limit, from }),
  );
}

/**
 * Asset events as the list asks for them; `null` when its value filters match no event at all.
 *
 * One asset's events are found through its own index; across assets a value may be rare. Read
 * whole (access `authorised`), one asset's page has one good plan whatever the values (its index,
 * the filters tested on its rows), so PostgreSQL keeps it instead of planning each look-up:
 * planning was twice the running time of the conserver's look-up before a later event.
 */
export async function assetEventList(
  db: Db,
  commonFilters: Map<string, number>,
  spec: AssetEventListSpec,
): Promise<RecordList<AssetEventRow> | null> {
  const w = new Where();
  const oneAsset = spec.assetId !== undefined;
  if (spec.assetId !== undefined) ofAsset(w, spec.assetId);
  restrictRows(w, "asset_events", spec.access);
  const byValue = addListFilters(w, spec.filters, EVENT_LIST, !oneAsset);
  filterAssetEvents(w, spec);
  const narrowed = oneAsset
    ? EVENT_LIST.table
    : await narrowedSource(db, commonFilters, EVENT_LIST.table, w, byValue);
  // One asset's list reads that asset's events alone: the backlog would not narrow it.
  const from =
    narrowed &&
    (oneAsset
      ? narrowed
      : await backlogSource(narrowed, EVENT_LIST.table, spec.statuses, w, (b, cap) =>
          unsettledEventSeqs(db, b, cap),
        ));
  if (!from) return null;
  const list = listOf(db, from, !oneAsset && from === EVENT_LIST.table && !byValue, w, (q) =>
    selectAssetEvents(q, w.sql, w.params, {
      cursor: spec.page.cursor,
      limit: spec.page.limit,
      ascending: spec.order === "oldest",
      from,
      reusePlan: oneAsset && spec.access.kind === "authorised",
    }),
  );
  // The page is read as records: the values or erasures of their erasable attributes joined, one
  // query for the page, outside the walk's settings (a look-up by key).
  return { ...list, page: async () => withErasables(db, await list.page()) };
}

/**
 * A list over `from` filtered by `w`: its page, and its count and estimate over the same clause.
 * `walk`: the list is a whole tenancy's (no value filter pinned it), read in index order.
 */
function listOf<R>(
  db: Db,
  from: string,
  walk: boolean,
  w: Where,
  page: (q: Queryable) => Promise<R[]>,
): RecordList<R> {
  const run = <T>(fn: (q: Queryable) => Promise<T>) => (walk ? inIndexOrder(db, fn) : fn(db));
  return {
    page: () => run(page),
    count: (cap) => run((q) => countWhere(q, from, w.sql, w.params, cap)),
    estimate: () => estimateWhere(db, from, w.sql, w.params),
  };
}
