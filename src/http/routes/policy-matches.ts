import { accessPolicyOut } from "../../services/access/access-policies.js";
import { assetPolicies, policyAssets } from "../../services/access/policy-audit.js";
import { forbidden, notFound, pathUuid } from "../../verify/primitives.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";

const group = "accesspoliciesv1";

/** Which assets a policy applies to, and which policies apply to an asset (administrators). */
export function policyMatchRoutes(t: RouteTable, d: HttpDeps): void {
  /** One side's matches, as a single page: administrators only; a 404 naming `noun` when its uuid names nothing. */
  const matches = <T>(
    path: string,
    summary: string,
    noun: string,
    find: (tenantId: string, id: string) => Promise<T | undefined>,
    page: (found: T) => object,
  ) =>
    t.add({
      method: "get",
      path,
      group,
      auth: "token",
      summary,
      handler: async ({ principal: p, params }) => {
        if (!p.isAdmin) throw forbidden("only administrators read policy matches");
        const found = await find(p.tenantId, pathUuid(params.uuid, noun));
        if (!found) throw notFound(noun);
        return { ...page(found), next_page_token: "" };
      },
    });
  matches(
    "/archivist/iam/v1/access_policies/{uuid}/assets",
    "Assets matching an access policy",
    "access policy",
    (tenantId, id) => policyAssets(d.ctx, tenantId, id),
    (assets) => ({ assets }),
  );
  matches(
    "/archivist/iam/v1/assets/{uuid}/access_policies",
    "Access policies matching an asset",
    "asset",
    (tenantId, id) => assetPolicies(d.ctx, tenantId, id),
    (policies) => ({ access_policies: policies.map(accessPolicyOut) }),
  );
}
