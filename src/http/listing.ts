import type { FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../context.js";
import type { ListPage, ListRequest } from "../services/record-lists.js";
import { applyCount, openListing, wantsCount } from "./paging.js";

/** Runs a record list: page token in, `{<collection>, next_page_token}` out, count headers and 206 set. */
export async function runList<T>(
  ctx: Ctx,
  req: FastifyRequest,
  res: FastifyReply,
  opts: { route: string; tenant: string; collection: string; pairs: Array<[string, string]> },
  list: (r: ListRequest) => Promise<ListPage<T>>,
): Promise<Record<string, unknown>> {
  const listing = openListing(opts.pairs, opts.route, opts.tenant, await ctx.keys.hmacSecret());
  const page = await list({
    pairs: listing.pairs,
    pageSize: listing.pageSize,
    cursor: listing.after,
    firstPage: listing.firstPage,
    wantCount: wantsCount(req),
  });
  applyCount(res, page.total, ctx.config.resultLimit);
  const next = page.more && page.lastSeq !== undefined ? listing.next(page.lastSeq) : "";
  return { [opts.collection]: page.items, next_page_token: next };
}
