import { pathUuid } from "../../core/api/ids.js";
import {
  activateMember,
  deactivateMember,
  listMembershipsPage,
  listMembersPage,
  memberOut,
  memberStateOf,
  membershipOut,
  patchMemberRoles,
} from "../../services/members.js";
import type { HttpDeps } from "../deps.js";
import { openListing, pageOf } from "../paging.js";
import type { RouteTable } from "../route.js";
import { emptyBody, pageQuery } from "../schemas/common.js";
import { member, memberList, memberListOut, memberPatch, membershipListOut } from "../schemas/members.js";

const BASE = "/archivist/iam/v1/members";
const group = "membersv1";

/** Members (administrators manage roles and activation) and the caller's own memberships. */
export function memberRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "get",
    path: BASE,
    group,
    auth: "token",
    summary: "List members (active only unless member_state=MEMBER_STATE_BOTH)",
    query: memberList,
    response: memberListOut,
    handler: async ({ principal, pairs }) => {
      const listing = openListing(pairs, "members", principal.tenantId, await d.ctx.keys.hmacSecret());
      const state = memberStateOf(listing.pairs.filter(([k]) => k === "member_state").at(-1)?.[1]);
      const rows = await listMembersPage(d.ctx, principal, {
        after: listing.after,
        limit: listing.pageSize + 1,
        state,
      });
      const { items, next_page_token } = pageOf(rows, listing, memberOut);
      // The interface names the token `page_token` for this list; both names are sent.
      return { members: items, page_token: next_page_token, next_page_token };
    },
  });
  const uuid = (params: Record<string, string>) => pathUuid(params.member_uuid, "member");
  t.add({
    method: "patch",
    path: `${BASE}/{member_uuid}`,
    group,
    auth: "token",
    summary: "Replace a member's roles (an empty list demotes to basic user)",
    body: memberPatch,
    response: member,
    handler: async ({ principal, params, body }) => {
      const out = await patchMemberRoles(d.ctx, principal, uuid(params), body.roles);
      d.auth.invalidate();
      return out;
    },
  });
  t.add({
    method: "post",
    path: `${BASE}/{member_uuid}:activate`,
    group,
    auth: "token",
    summary: "Activate a member (basic user rights only)",
    body: emptyBody,
    response: member,
    handler: async ({ principal, params }) => {
      const out = await activateMember(d.ctx, principal, uuid(params));
      d.auth.invalidate();
      return out;
    },
  });
  t.add({
    method: "post",
    path: `${BASE}/{member_uuid}:deactivate`,
    group,
    auth: "token",
    summary: "Deactivate a member (roles are stripped; its tokens are refused)",
    body: emptyBody,
    response: member,
    handler: async ({ principal, params }) => {
      const out = await deactivateMember(d.ctx, principal, uuid(params));
      d.auth.invalidate();
      return out;
    },
  });
  t.add({
    method: "get",
    path: "/archivist/iam/v1/memberships",
    group: "membershipsv1",
    auth: "token",
    summary: "List the calling user's memberships (empty for an application)",
    query: pageQuery,
    response: membershipListOut,
    handler: async ({ principal, pairs }) => {
      // Bound to the caller's tenancy like every page token; memberships span tenancies by e-mail.
      const listing = openListing(pairs, "memberships", principal.tenantId, await d.ctx.keys.hmacSecret());
      const rows = await listMembershipsPage(d.ctx, principal, {
        after: listing.after,
        limit: listing.pageSize + 1,
      });
      const { items, next_page_token } = pageOf(rows, listing, membershipOut);
      return { memberships: items, next_page_token };
    },
  });
}
