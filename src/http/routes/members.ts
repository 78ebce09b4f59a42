import {
  activateMember,
  deactivateMember,
  memberOut,
  memberSource,
  membershipOut,
  membershipSource,
  patchMemberRoles,
} from "../../services/identity/members.js";
import { pathUuid } from "../../verify/primitives.js";
import type { HttpDeps } from "../deps.js";
import { listRoute } from "../listing.js";
import type { RouteTable } from "../route.js";
import { emptyBody, pageQuery } from "../schemas/common.js";
import { member, memberList, memberListOut, memberPatch, membershipListOut } from "../schemas/members.js";

const BASE = "/archivist/iam/v1/members";
const group = "membersv1";

/** Members (administrators manage roles and activation) and the caller's own memberships. */
export function memberRoutes(t: RouteTable, d: HttpDeps): void {
  t.add(
    listRoute(d.ctx, {
      path: BASE,
      group,
      summary: "List members (active only unless member_state=MEMBER_STATE_BOTH)",
      query: memberList,
      response: memberListOut,
      collection: "members",
      rows: ({ principal }, q) => memberSource(d.ctx, principal, q),
      shape: memberOut,
      // The interface names the token `page_token` for this list; both names are sent.
      also: (body) => ({ page_token: body.next_page_token }),
    }),
  );
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
  t.add(
    listRoute(d.ctx, {
      path: "/archivist/iam/v1/memberships",
      group: "membershipsv1",
      summary: "List the calling user's memberships (empty for an application)",
      query: pageQuery,
      response: membershipListOut,
      // Bound to the caller's tenancy like every page token; memberships span tenancies by e-mail.
      collection: "memberships",
      rows: ({ principal }) => membershipSource(d.ctx, principal),
      shape: membershipOut,
    }),
  );
}
