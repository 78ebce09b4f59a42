import { decodePageToken, encodePageToken } from "../../core/api/page-token.js";
import { type StatementCursor, searchStatements } from "../../services/scitt/statement-search.js";
import type { HttpDeps } from "../deps.js";
import { openListing } from "../paging.js";
import type { RouteTable } from "../route.js";
import { statementList, statementQuery } from "../schemas/statements.js";

const ROUTE = "statements";
// The asset-free events' cursor rides in the token's query under a key no request can send.
const FREE_CURSOR = "@free_events";

/** Finding statements (registered, and made from events) by subject, issuer and payload hash. */
export function statementRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "get",
    path: "/archivist/v1/statements",
    group: "statementsv1",
    auth: "token",
    summary:
      "Find signed statements (registered through SCRAPI, and those made from template-carrying events) by subject, issuer or payload hash, among the records the caller may read; newest first, paged",
    query: statementQuery,
    response: statementList,
    handler: async ({ principal, pairs }) => {
      const key = await d.ctx.keys.hmacSecret();
      const listing = openListing(pairs, ROUTE, principal.tenantId, key, 50);
      const token = pairs.filter(([k]) => k === "page_token").at(-1)?.[1];
      const state = token
        ? decodePageToken(token, key, { route: ROUTE, tenant: principal.tenantId })
        : undefined;
      const query = listing.pairs.filter(([k]) => k !== FREE_CURSOR);
      const get = (k: string) => query.filter(([key]) => key === k).at(-1)?.[1];
      const freeCursor = state ? Number(state.query.find(([k]) => k === FREE_CURSOR)?.[1] ?? 0) : 0;
      const cursor: StatementCursor = { assetEvents: listing.after, freeEvents: freeCursor };
      const found = await searchStatements(
        d.ctx,
        principal,
        { subject: get("subject"), issuer: get("issuer"), payload_hash: get("payload_hash") },
        cursor,
        listing.pageSize,
      );
      const next = found.next
        ? encodePageToken(
            {
              route: ROUTE,
              tenant: principal.tenantId,
              query: [...query, [FREE_CURSOR, String(found.next.freeEvents)]],
              pageSize: state?.pageSize ?? listing.pageSize,
              after: found.next.assetEvents,
            },
            key,
          )
        : "";
      return { statements: found.statements, next_page_token: next };
    },
  });
}
