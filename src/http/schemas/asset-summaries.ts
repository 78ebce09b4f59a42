import { z } from "zod";
import { assetOut } from "./assets.js";

/** `GET /archivist/v2/assets/-/summaries`: the auditor's table of assets. */
export const assetSummaryQuery = z.object({
  order_by: z
    .enum(["LAST_EVENT", "NAME", "CREATED"])
    .optional()
    .describe(
      "LAST_EVENT: newest event first; NAME: by arc_display_name, A to Z; CREATED (default): newest asset first",
    ),
  q: z
    .string()
    .max(256)
    .optional()
    .describe("text found anywhere in the asset's arc_display_name, subject or arc_display_type, any case"),
  page_size: z.string().optional(),
  page_token: z.string().optional(),
});

const assetSummary = assetOut.extend({
  event_count: z.number().int().describe("the asset's events the caller may read, its creation included"),
  last_event_at: z
    .string()
    .describe("when the newest of those events was accepted (RFC 3339); empty when there is none"),
});

export const assetSummaryList = z.object({
  assets: z.array(assetSummary),
  next_page_token: z.string(),
});
