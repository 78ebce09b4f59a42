import { z } from "zod";
import { badRequest } from "../../errors/api-error.js";
import { pathUuid } from "../../errors/path-uuid.js";
import { viewFor } from "../../services/access/caller-view.js";
import {
  assetCompliance,
  compliancePolicyOut,
  compliancePolicySource,
  createCompliancePolicy,
  readCompliancePolicy,
  removeCompliancePolicy,
} from "../../services/compliance/compliance.js";
import { crudRoutes } from "../crud-routes.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";

/** Compliance policies (CRUD) and the compliance of an asset. */
export function complianceRoutes(t: RouteTable, d: HttpDeps): void {
  crudRoutes(t, d, {
    base: "/archivist/v1/compliance_policies",
    group: "compliancepoliciesv1",
    noun: "compliance policy",
    list: {
      summary: "List compliance policies",
      collection: "compliance_policies",
      rows: ({ principal }, q) => compliancePolicySource(d.ctx, principal, q),
      shape: compliancePolicyOut,
    },
    create: {
      summary: "Create a compliance policy",
      body: z.unknown(),
      run: (p, body) => createCompliancePolicy(d.ctx, p, body),
    },
    read: { summary: "Get a compliance policy", run: (p, id) => readCompliancePolicy(d.ctx, p, id) },
    // Compliance policies are replaced, not patched; a deletion answers the policy it removed.
    remove: { summary: "Delete a compliance policy", run: (p, id) => removeCompliancePolicy(d.ctx, p, id) },
  });
  t.add({
    method: "get",
    path: "/archivist/v1/compliance/assets/{uuid}",
    group: "complianceassetsv1",
    auth: "token",
    summary: "Compliance of an asset (optionally at compliant_at)",
    query: z.object({ compliant_at: z.string().optional() }),
    handler: async ({ principal: p, params, query }) => {
      const at = query.compliant_at ? new Date(query.compliant_at) : undefined;
      if (at && Number.isNaN(at.getTime())) throw badRequest("compliant_at must be an RFC 3339 timestamp");
      return assetCompliance(d.ctx, await viewFor(d.ctx, p), pathUuid(params.uuid, "asset"), at);
    },
  });
}
