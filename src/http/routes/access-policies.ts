import { pathUuid } from "../../core/api/ids.js";
import {
  accessPolicyOut,
  createAccessPolicy,
  listAccessPoliciesPage,
  patchAccessPolicy,
  readAccessPolicy,
  removeAccessPolicy,
} from "../../services/access-policies.js";
import type { HttpDeps } from "../deps.js";
import { openListing, pageOf } from "../paging.js";
import type { RouteTable } from "../route.js";
import {
  accessPolicy,
  accessPolicyBody,
  accessPolicyList,
  accessPolicyListOut,
} from "../schemas/access-policies.js";

const BASE = "/archivist/iam/v1/access_policies";
const group = "accesspoliciesv1";

/** Access policies: CRUD (the matching-assets routes belong to the assets module). */
export function accessPolicyRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "get",
    path: BASE,
    group,
    auth: "token",
    summary: "List access policies",
    query: accessPolicyList,
    response: accessPolicyListOut,
    handler: async ({ principal, pairs }) => {
      const listing = openListing(
        pairs,
        "access_policies",
        principal.tenantId,
        await d.ctx.keys.hmacSecret(),
      );
      const values = (key: string) => {
        const v = listing.pairs.filter(([k]) => k === key).map(([, x]) => x);
        return v.length ? v : undefined;
      };
      const rows = await listAccessPoliciesPage(d.ctx, principal, {
        after: listing.after,
        limit: listing.pageSize + 1,
        displayName: values("display_name"),
        description: values("description"),
      });
      const { items, next_page_token } = pageOf(rows, listing, accessPolicyOut);
      return { access_policies: items, next_page_token };
    },
  });
  t.add({
    method: "post",
    path: BASE,
    group,
    auth: "token",
    summary: "Create an access policy {display_name, description, filters[], access_permissions[]}",
    body: accessPolicyBody,
    response: accessPolicy,
    handler: ({ principal, body }) => createAccessPolicy(d.ctx, principal, body),
  });
  t.add({
    method: "get",
    path: `${BASE}/{uuid}`,
    group,
    auth: "token",
    summary: "Get an access policy",
    response: accessPolicy,
    handler: ({ principal, params }) =>
      readAccessPolicy(d.ctx, principal, pathUuid(params.uuid, "access policy")),
  });
  t.add({
    method: "patch",
    path: `${BASE}/{uuid}`,
    group,
    auth: "token",
    summary: "Update an access policy (each field sent replaces the stored one whole)",
    body: accessPolicyBody,
    response: accessPolicy,
    handler: ({ principal, params, body }) =>
      patchAccessPolicy(d.ctx, principal, pathUuid(params.uuid, "access policy"), body),
  });
  t.add({
    method: "delete",
    path: `${BASE}/{uuid}`,
    group,
    auth: "token",
    summary: "Delete an access policy",
    handler: async ({ principal, params }) => {
      await removeAccessPolicy(d.ctx, principal, pathUuid(params.uuid, "access policy"));
      return {};
    },
  });
}
