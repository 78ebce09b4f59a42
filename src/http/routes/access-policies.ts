import {
  accessPolicyOut,
  accessPolicySource,
  createAccessPolicy,
  patchAccessPolicy,
  readAccessPolicy,
  removeAccessPolicy,
} from "../../services/access/access-policies.js";
import { crudRoutes } from "../crud-routes.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import {
  accessPolicy,
  accessPolicyBody,
  accessPolicyList,
  accessPolicyListOut,
} from "../schemas/access-policies.js";

/** Access policies: CRUD (the matching-assets routes belong to the assets module). */
export function accessPolicyRoutes(t: RouteTable, d: HttpDeps): void {
  crudRoutes(t, d, {
    base: "/archivist/iam/v1/access_policies",
    group: "accesspoliciesv1",
    noun: "access policy",
    list: {
      summary: "List access policies",
      query: accessPolicyList,
      response: accessPolicyListOut,
      collection: "access_policies",
      rows: ({ principal }, q) => accessPolicySource(d.ctx, principal, q),
      shape: accessPolicyOut,
    },
    create: {
      summary: "Create an access policy {display_name, description, filters[], access_permissions[]}",
      body: accessPolicyBody,
      response: accessPolicy,
      run: (p, body) => createAccessPolicy(d.ctx, p, body),
    },
    read: {
      summary: "Get an access policy",
      response: accessPolicy,
      run: (p, id) => readAccessPolicy(d.ctx, p, id),
    },
    patch: {
      summary: "Update an access policy (each field sent replaces the stored one whole)",
      body: accessPolicyBody,
      response: accessPolicy,
      run: (p, id, body) => patchAccessPolicy(d.ctx, p, id, body),
    },
    remove: { summary: "Delete an access policy", run: (p, id) => removeAccessPolicy(d.ctx, p, id) },
  });
}
