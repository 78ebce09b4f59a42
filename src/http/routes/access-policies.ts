import { pathUuid } from "../../core/api/ids.js";
import {
  accessPolicyOut,
  accessPolicySource,
  createAccessPolicy,
  patchAccessPolicy,
  readAccessPolicy,
  removeAccessPolicy,
} from "../../services/access/access-policies.js";
import type { HttpDeps } from "../deps.js";
import { listRoute } from "../listing.js";
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
  t.add(
    listRoute(d.ctx, {
      path: BASE,
      group,
      summary: "List access policies",
      query: accessPolicyList,
      response: accessPolicyListOut,
      collection: "access_policies",
      rows: ({ principal }, q) => accessPolicySource(d.ctx, principal, q),
      shape: accessPolicyOut,
    }),
  );
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
