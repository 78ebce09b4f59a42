import type { Ctx } from "../../context.js";
import type { AssetSummaryOrder } from "../../core/filters/list-spec.js";
import { assertStorableText } from "../../core/filters/text-guard.js";
import { badRequest } from "../../errors/api-error.js";
import { isoTime } from "../../formats/ids.js";
import { type AssetRecord, assetRecord } from "../../formats/record/asset.js";
import { assetSummaryList } from "../../store/records/asset-summaries.js";
import { type AccessView, projectAttributes } from "../access/access-view.js";

/** An asset as the list of summaries shows it: the record, its readable events' count and newest time. */
export type AssetSummary = AssetRecord & { event_count: number; last_event_at: string };

const ORDERS: readonly AssetSummaryOrder[] = ["LAST_EVENT", "NAME", "CREATED"];
/** Longer text than any name, subject or type an auditor types. */
const MAX_TEXT = 256;

export interface SummaryRequest {
  order: string | undefined;
  text: string | undefined;
  pageSize: number;
  /** How many rows earlier pages held. */
  offset: number;
  firstPage: boolean;
  wantCount: boolean;
}

/**
 * The assets the caller may read with their event counts and newest event times, filtered by a
 * text in their name, subject or type, in the order asked. Counts and times are of the events
 * the caller may read: an event hidden from it is neither counted nor dated.
 */
export async function listAssetSummaries(
  ctx: Pick<Ctx, "db" | "config">,
  view: AccessView,
  req: SummaryRequest,
): Promise<{ items: AssetSummary[]; next: number | undefined; total: number | undefined }> {
  const order = (req.order || "CREATED") as AssetSummaryOrder;
  if (!ORDERS.includes(order)) throw badRequest(`order_by must be one of ${ORDERS.join(", ")}`);
  const text = (req.text ?? "").trim();
  if (text.length > MAX_TEXT) throw badRequest(`q must be at most ${MAX_TEXT} characters`);
  assertStorableText(text, "q", "ATTRIBUTE_QUERY");
  const list = assetSummaryList(ctx.db, {
    access: view.restriction,
    // Seen whole, every event of a readable asset is readable; else the caller's event rules apply.
    eventAccess: view.whole ? { kind: "authorised" } : view.restriction,
    text: text ? { value: text, hiddenIn: (name) => view.hiddenIn(name) } : undefined,
    order,
    nameHiddenIn: view.hiddenIn("arc_display_name"),
    offset: req.offset,
    limit: req.pageSize + 1,
  });
  const rows = await list.page();
  const page = rows.slice(0, req.pageSize);
  const items = page.flatMap((a) => {
    const g = view.grant(a);
    if (!g) return [];
    const record = assetRecord(a, projectAttributes(a.attributes, g));
    return [{ ...record, event_count: a.event_count, last_event_at: isoTime(a.last_event_at) }];
  });
  const more = rows.length > req.pageSize;
  let total: number | undefined;
  if (req.firstPage && !more) total = page.length;
  else if (req.firstPage || req.wantCount) total = await list.count(ctx.config.resultLimit + 1);
  return { items, next: more ? req.offset + page.length : undefined, total };
}
