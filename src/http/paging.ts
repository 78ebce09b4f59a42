import type { FastifyReply, FastifyRequest } from "fastify";
import { decodePageToken, encodePageToken, type PageState } from "../core/api/page-token.js";
import { badRequest } from "../errors/api-error.js";

/** A list's page when the request names no size, and the largest it may name. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

/** The effective listing: from a page token when one is sent, else from this request. */
export interface Listing {
  pairs: Array<[string, string]>;
  pageSize: number;
  after: number;
  firstPage: boolean;
  next(lastSeq: number): string;
}

const RESERVED = new Set(["page_token", "page_size"]);

function pageSizeOf(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw)) throw badRequest("page_size must be a positive integer");
  const n = Number(raw);
  if (n < 1) throw badRequest("page_size must be a positive integer");
  return Math.min(n, MAX_PAGE_SIZE);
}

/** Reads page_token/page_size and the query it stands for; tokens are bound to route and tenancy. */
export function openListing(
  pairs: Array<[string, string]>,
  route: string,
  tenant: string,
  key: Uint8Array,
  defaultSize = DEFAULT_PAGE_SIZE,
): Listing {
  const get = (k: string) => pairs.filter(([key]) => key === k).at(-1)?.[1];
  const token = get("page_token");
  const state: PageState = token
    ? decodePageToken(token, key, { route, tenant })
    : {
        route,
        tenant,
        query: pairs.filter(([k]) => !RESERVED.has(k)),
        pageSize: pageSizeOf(undefined, defaultSize),
        after: 0,
      };
  const sizeParam = get("page_size");
  const pageSize = pageSizeOf(sizeParam, state.pageSize);
  return {
    pairs: state.query,
    pageSize,
    after: state.after,
    firstPage: !token,
    next: (lastSeq) =>
      encodePageToken({ ...state, pageSize: token ? state.pageSize : pageSize, after: lastSeq }, key),
  };
}

/** True when the caller asked for `x-total-count`. */
export function wantsCount(req: FastifyRequest): boolean {
  return String(req.headers["x-request-total-count"] ?? "").toLowerCase() === "true";
}

/** Sets count headers, and 206 + content-range past the server result limit. */
export function applyCount(res: FastifyReply, total: number | undefined, limit: number): void {
  if (total === undefined) return;
  res.header("x-total-count", String(total));
  if (total > limit) res.code(206).header("content-range", `items 0-${limit}/${total}`);
}
