import { z } from "zod";
import { badRequest } from "../../core/api/api-error.js";
import { pathUuid } from "../../core/api/ids.js";
import { viewFor } from "../../services/access/caller-view.js";
import {
  assetCompliance,
  compliancePolicyOut,
  compliancePolicySource,
  createCompliancePolicy,
  readCompliancePolicy,
  removeCompliancePolicy,
} from "../../services/compliance/compliance.js";
import type { HttpDeps } from "../deps.js";
import { listRoute } from "../listing.js";
import type { RouteTable } from "../route.js";

const BASE = "/archivist/v1/compliance_policies";
const group = "compliancepoliciesv1";

/** Compliance policies (CRUD) and the compliance of an asset. */
export function complianceRoutes(t: RouteTable, d: HttpDeps): void {
  t.add(
    listRoute(d.ctx, {
      path: BASE,
      group,
      summary: "List compliance policies",
      collection: "compliance_policies",
      rows: ({ principal }, q) => compliancePolicySource(d.ctx, principal, q),
      shape: compliancePolicyOut,
    }),
  );
  t.add({
    method: "post",
    path: BASE,
    group,
    auth: "token",
    summary: "Create a compliance policy",
    body: z.unknown(),
    handler: ({ principal: p, body }) => createCompliancePolicy(d.ctx, p, body),
  });
  t.add({
    method: "get",
    path: `${BASE}/{uuid}`,
    group,
    auth: "token",
    summary: "Get a compliance policy",
    handler: ({ principal: p, params }) =>
      readCompliancePolicy(d.ctx, p, pathUuid(params.uuid, "compliance policy")),
  });
  t.add({
    method: "delete",
    path: `${BASE}/{uuid}`,
    group,
    auth: "token",
    summary: "Delete a compliance policy",
    handler: ({ principal: p, params }) =>
      removeCompliancePolicy(d.ctx, p, pathUuid(params.uuid, "compliance policy")),
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
