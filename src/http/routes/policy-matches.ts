import { accessPolicyOut } from "../../services/access/access-policies.js";
import { assetPolicies, policyAssets } from "../../services/access/policy-audit.js";
import { forbidden, notFound, pathUuid } from "../../verify/primitives.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";

const group = "accesspoliciesv1";

/** Which assets a policy applies to, and which policies apply to an asset (administrators). */
export function policyMatchRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "get",
    path: "/archivist/iam/v1/access_policies/{uuid}/assets",
    group,
    auth: "token",
    summary: "Assets matching an access policy",
    handler: async ({ principal: p, params }) => {
      if (!p.isAdmin) throw forbidden("only administrators read policy matches");
      const assets = await policyAssets(d.ctx, p.tenantId, pathUuid(params.uuid, "access policy"));
      if (!assets) throw notFound("access policy");
      return { assets, next_page_token: "" };
    },
  });
  t.add({
    method: "get",
    path: "/archivist/iam/v1/assets/{uuid}/access_policies",
    group,
    auth: "token",
    summary: "Access policies matching an asset",
    handler: async ({ principal: p, params }) => {
      if (!p.isAdmin) throw forbidden("only administrators read policy matches");
      const policies = await assetPolicies(d.ctx, p.tenantId, pathUuid(params.uuid, "asset"));
      if (!policies) throw notFound("asset");
      return { access_policies: policies.map(accessPolicyOut), next_page_token: "" };
    },
  });
}
