import { viewFor } from "../../services/access/caller-view.js";
import { listAssetSummaries } from "../../services/records/asset-summaries.js";
import type { HttpDeps } from "../deps.js";
import { listRoute } from "../listing.js";
import type { RouteTable } from "../route.js";
import { assetSummaryList, assetSummaryQuery } from "../schemas/asset-summaries.js";

const last = (pairs: Array<[string, string]>, key: string) => pairs.filter(([k]) => k === key).at(-1)?.[1];

/**
 * The auditor's table of assets (an extension: not in the DataTrails API): each asset with its
 * event count and newest event time, sorted and filtered by text. Page tokens carry the query;
 * their cursor is a position, since the newest-event order moves as events arrive.
 */
export function assetSummaryRoutes(t: RouteTable, d: HttpDeps): void {
  t.add(
    listRoute(d.ctx, {
      path: "/archivist/v2/assets/-/summaries",
      group: "assetsv2",
      summary:
        "List assets with their event counts and newest event times, by newest event, name or creation, filtered by text (an extension: not in the DataTrails API)",
      collection: "assets",
      family: "asset-summaries",
      query: assetSummaryQuery,
      response: assetSummaryList,
      records: async ({ principal }, r) => {
        const page = await listAssetSummaries(d.ctx, await viewFor(d.ctx, principal), {
          order: last(r.pairs, "order_by"),
          text: last(r.pairs, "q"),
          pageSize: r.pageSize,
          offset: r.cursor,
          firstPage: r.firstPage,
          wantCount: r.wantCount,
        });
        return { items: page.items, lastSeq: page.next, more: page.next !== undefined, total: page.total };
      },
    }),
  );
}
