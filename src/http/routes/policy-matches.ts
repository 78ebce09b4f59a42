import { forbidden, notFound } from "../../errors/api-error.js";
import { pathUuid } from "../../errors/path-uuid.js";
import { accessPolicyOut } from "../../services/access/access-policies.js";
import { assetPolicies, policyAssets } from "../../services/access/policy-audit.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";

const group = "accesspoliciesv1";

/** Which assets a policy applies to, and which policies apply to an asset (administrators). */
export function policyMatchRoutes(t: RouteTable, d: HttpDeps): void {
  /** One side's matches, as a single page: administrators only; a 404 naming `noun` when its uuid names nothing. */
  const matches = <T>(side: {
    path: string;
    summary: string;
    noun: string;
    find: (tenantId: string, id: string) => Promise<T | undefined>;
    page: (found: T) => object;
  }) =>
    t.add({
      method: "get",
      path: side.path,
      group,
      auth: "token",
      summary: side.summary,
      handler: async ({ principal: p, params }) => {
        if (!p.isAdmin) throw forbidden("only administrators read policy matches");
        const found = await side.find(p.tenantId, pathUuid(params.uuid, side.noun));
        if (!found) throw notFound(side.noun);
        return { ...side.page(found), next_page_token: "" };
      },
    });
  matches({
    path: "/archivist/iam/v1/access_policies/{uuid}/assets",
    summary: "Assets matching an access policy",
    noun: "access policy",
    find: (tenantId, id) => policyAssets(d.ctx, tenantId, id),
    page: (assets) => ({ assets }),
  });
  matches({
    path: "/archivist/iam/v1/assets/{uuid}/access_policies",
    summary: "Access policies matching an asset",
    noun: "asset",
    find: (tenantId, id) => assetPolicies(d.ctx, tenantId, id),
    page: (policies) => ({ access_policies: policies.map(accessPolicyOut) }),
  });
}
