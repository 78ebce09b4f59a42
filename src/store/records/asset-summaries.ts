import type { AssetSummaryListSpec, AssetSummaryOrder } from "../../core/filters/list-spec.js";
import type { Db, Queryable } from "../drivers/db.js";
import { countWhere, inIndexOrder, Where } from "../query/sql.js";
import { restrictRows } from "./access-sql.js";
import { ASSET_COLUMNS, type AssetRow } from "./assets.js";

/** An asset with how many of its events the caller may read, and when the newest was accepted. */
export interface AssetSummaryRow extends AssetRow {
  event_count: number;
  last_event_at: Date | null;
}

/** The attributes the text filter reads: an asset's name, subject and type. */
const SUMMARY_TEXT_ATTRIBUTES = ["arc_display_name", "subject", "arc_display_type"] as const;

/** An attribute as the caller may read it: null on rows of tenancies where it is hidden from it. */
function readable(w: Where, name: string, hiddenIn: readonly string[]): string {
  const value = `(attributes->>${w.p(name)})`;
  return hiddenIn.length
    ? `(case when tenant_id = any(${w.p(hiddenIn)}::uuid[]) then null else ${value} end)`
    : value;
}

/**
 * Adds the text filter: the text anywhere in the name, subject or type, any case. An attribute
 * hidden from the caller in a tenancy is read there as missing, so a match never tells a hidden value.
 */
function filterSummaryText(w: Where, text: string, hiddenIn: (name: string) => readonly string[]): void {
  const pattern = `%${text.replace(/[\\%_]/g, "\\$&")}%`;
  const tests = SUMMARY_TEXT_ATTRIBUTES.map(
    (name) => `${readable(w, name, hiddenIn(name))} ilike ${w.p(pattern)}`,
  );
  w.and(tests.join(" or "));
}

/**
 * A page of assets matching `assets`, each with the count and newest acceptance time of its
 * events passing `events`: a condition on `asset_events` that continues `assets`' numbering
 * (made as `new Where(assets.params)`, so its params are all of them). Paged by position: the
 * order by newest event moves as events arrive, so no key of a row holds its place.
 */
function selectAssetSummaries(
  db: Queryable,
  assets: Where,
  events: Where,
  opts: {
    order: AssetSummaryOrder;
    /** The name as the caller may read it (`readable`'s rule), for the NAME order. */
    nameHiddenIn: readonly string[];
    offset: number;
    limit: number;
  },
): Promise<AssetSummaryRow[]> {
  const params = [...events.params];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  let order = "seq desc";
  if (opts.order === "LAST_EVENT") order = "s.last_event_at desc nulls last, seq desc";
  if (opts.order === "NAME") {
    const name = `(attributes->>${p("arc_display_name")})`;
    const shown = opts.nameHiddenIn.length
      ? `(case when tenant_id = any(${p(opts.nameHiddenIn)}::uuid[]) then null else ${name} end)`
      : name;
    order = `lower(${shown}) asc nulls last, seq desc`;
  }
  return db.query<AssetSummaryRow>(
    `select ${ASSET_COLUMNS}, s.event_count, s.last_event_at from assets
     cross join lateral (select count(*)::int as event_count, max(timestamp_accepted) as last_event_at
       from asset_events where asset_events.asset_id = assets.id and ${events.sql}) s
     where ${assets.sql} order by ${order} limit ${p(opts.limit)} offset ${p(opts.offset)}`,
    params,
  );
}

/**
 * The asset table compiled from its specification: its page, and the count of the same assets
 * (capped), over the one WHERE clause.
 */
export function assetSummaryList(
  db: Db,
  spec: AssetSummaryListSpec,
): { page(): Promise<AssetSummaryRow[]>; count(cap: number): Promise<number> } {
  const w = new Where();
  restrictRows(w, "assets", spec.access);
  if (spec.text) filterSummaryText(w, spec.text.value, spec.text.hiddenIn);
  // The events' condition continues the assets' numbering: the page's statement holds both.
  const events = new Where(w.params);
  restrictRows(events, "asset_events", spec.eventAccess);
  // Newest created first is a walk of the tenancy's assets that stops at the page (and a count at
  // its cap); by newest event or by name every asset is read and sorted, whatever the plan.
  const run = <T>(fn: (q: Queryable) => Promise<T>) =>
    spec.order === "CREATED" && !spec.text ? inIndexOrder(db, fn) : fn(db);
  return {
    page: () =>
      run((q) =>
        selectAssetSummaries(q, w, events, {
          order: spec.order,
          nameHiddenIn: spec.nameHiddenIn,
          offset: spec.offset,
          limit: spec.limit,
        }),
      ),
    count: (cap) => run((q) => countWhere(q, "assets", w.sql, w.params, cap)),
  };
}
