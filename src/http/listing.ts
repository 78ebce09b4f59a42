import type { FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { Ctx } from "../context.js";
import type { ListPage, ListRequest, RowSource } from "../services/records/lists.js";
import { applyCount, openListing, wantsCount } from "./paging.js";
import type { AnyRouteSpec, Call } from "./route.js";
import { listQuery } from "./schemas/assets.js";

/** Runs a record list: page token in, `{<collection>, next_page_token}` out, count headers and 206 set. */
async function runList<T>(
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
function runSourceList<R extends { seq: number }>(
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

/** What every list route declares; paging, counts, page tokens and 206 are the helper's. */
interface ListRouteBase {
  path: string;
  group: string;
  summary: string;
  /** Default `token`. Public lists bind their page tokens to no tenancy. */
  auth?: "token" | "public";
  /** Default: the record lists' query (paging plus any attribute filter). */
  query?: z.ZodType;
  response?: z.ZodType;
  /** The answer's key for the items. */
  collection: string;
  /** The page tokens' route family (default: the collection), from the call where it names a path value. */
  family?: string | ((call: AnyCall) => string);
  /** Other spellings of the answer's keys the interface shows, added beside them. */
  also?: (body: Record<string, unknown>) => Record<string, unknown>;
}

/** A list route reads only the call's principal, params, pairs and reply. */
type AnyCall = Call<unknown, unknown>;

/** A list route of records (assets, events): the service pages them itself. */
interface RecordListRoute<T> extends ListRouteBase {
  records: (call: AnyCall, r: ListRequest) => Promise<ListPage<T>>;
}

/** A list route of a collection served by a row source, each row shaped for the answer. */
export interface SourceListRoute<R extends { seq: number }> extends ListRouteBase {
  rows: (call: AnyCall, pairs: Array<[string, string]>) => RowSource<R> | Promise<RowSource<R>>;
  shape: (row: R) => unknown;
}

/** Page tokens of public lists are bound to this instead of a tenancy. */
const PUBLIC_TENANT = "public";

/** The route of a list: a GET whose answer, paging and counts are the same for every collection. */
export function listRoute<T, R extends { seq: number }>(
  ctx: Ctx,
  spec: RecordListRoute<T> | SourceListRoute<R>,
): AnyRouteSpec {
  return {
    method: "get",
    path: spec.path,
    group: spec.group,
    summary: spec.summary,
    auth: spec.auth ?? "token",
    query: spec.query ?? listQuery,
    ...(spec.response ? { response: spec.response } : {}),
    handler: async (call: AnyCall) => {
      const family = typeof spec.family === "function" ? spec.family(call) : (spec.family ?? spec.collection);
      const opts = {
        route: family,
        tenant: spec.auth === "public" ? PUBLIC_TENANT : call.principal.tenantId,
        collection: spec.collection,
        pairs: call.pairs,
      };
      const body =
        "rows" in spec
          ? await runSourceList(ctx, call.req, call.res, opts, (q) => spec.rows(call, q), spec.shape)
          : await runList(ctx, call.req, call.res, opts, (r) => spec.records(call, r));
      return spec.also ? { ...body, ...spec.also(body) } : body;
    },
  };
}
