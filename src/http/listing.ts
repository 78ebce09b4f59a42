import type { FastifyReply, FastifyRequest } from "fastify";
import type { Ctx } from "../context.js";
import type { ListPage, ListRequest, RowSource } from "../services/records/lists.js";
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

/**
 * Runs a collection listed through a row source (policies, registrations, members, …): the same
 * page tokens, `x-total-count` and 206 as the record lists, one path for every collection.
 */
export function runSourceList<R extends { seq: number }>(
  ctx: Ctx,
  req: FastifyRequest,
  res: FastifyReply,
  opts: { route: string; tenant: string; collection: string; pairs: Array<[string, string]> },
  source: (pairs: Array<[string, string]>) => RowSource<R> | Promise<RowSource<R>>,
  shape: (row: R) => unknown,
): Promise<Record<string, unknown>> {
  return runList(ctx, req, res, opts, async (r) => {
    const rows = await source(r.pairs);
    const fetched = await rows.page(r.cursor, r.pageSize + 1);
    const page = fetched.slice(0, r.pageSize);
    return {
      items: page.map(shape),
      lastSeq: page.at(-1)?.seq,
      more: fetched.length > r.pageSize,
      total: r.wantCount ? await rows.count() : undefined,
    };
  });
}
