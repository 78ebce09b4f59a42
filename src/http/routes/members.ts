import { pathUuid } from "../../errors/path-uuid.js";
import {
  activateMember,
  deactivateMember,
  memberOut,
  memberSource,
  membershipOut,
  membershipSource,
  patchMemberRoles,
} from "../../services/identity/members.js";
import type { HttpDeps } from "../deps.js";
import { listRoute } from "../listing.js";
import type { RouteTable } from "../route.js";
import { pageQuery } from "../schemas/common.js";
import { member, memberList, memberListOut, memberPatch, membershipListOut } from "../schemas/members.js";
import { changingAccess, verbRoute } from "../verb-routes.js";

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
  const item = `${BASE}/{member_uuid}`;
  // Every change to a member changes who may do what.
  t.add(
    changingAccess(d, {
      method: "patch",
      path: item,
      group,
      auth: "token",
      summary: "Replace a member's roles (an empty list demotes to basic user)",
      body: memberPatch,
      response: member,
      handler: ({ principal, params, body }) => patchMemberRoles(d.ctx, principal, uuid(params), body.roles),
    }),
  );
  const verbs = [
    ["activate", "Activate a member (basic user rights only)", activateMember],
    ["deactivate", "Deactivate a member (roles are stripped; its tokens are refused)", deactivateMember],
  ] as const;
  for (const [verb, summary, use] of verbs)
    t.add(
      verbRoute(d, {
        item,
        verb,
        group,
        summary,
        response: member,
        id: uuid,
        run: (p, id) => use(d.ctx, p, id),
        changesAccess: true,
      }),
    );
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
