import { z } from "zod";
import { badRequest } from "../../core/api/api-error.js";
import { pathUuid } from "../../core/api/ids.js";
import { COMPLIANCE_TYPES } from "../../core/compliance/index.js";
import {
  assetCompliance,
  compliancePolicyOut,
  compliancePolicyPage,
  createCompliancePolicy,
  readCompliancePolicy,
  removeCompliancePolicy,
} from "../../services/compliance.js";
import { viewFor } from "../../services/views.js";
import type { HttpDeps } from "../deps.js";
import { openListing, pageOf } from "../paging.js";
import type { RouteTable } from "../route.js";
import { listQuery } from "../schemas/assets.js";

const BASE = "/archivist/v1/compliance_policies";
const group = "compliancepoliciesv1";

/** Compliance policies (CRUD) and the compliance of an asset. */
export function complianceRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "get",
    path: BASE,
    group,
    auth: "token",
    summary: "List compliance policies",
    query: listQuery,
    handler: async ({ principal: p, pairs }) => {
      const listing = openListing(pairs, "compliance_policies", p.tenantId, await d.ctx.keys.hmacSecret());
      const types = listing.pairs.filter(([k]) => k === "compliance_type").map(([, v]) => v);
      for (const ty of types)
        if (!(COMPLIANCE_TYPES as readonly string[]).includes(ty))
          throw badRequest(`compliance_type must be one of ${COMPLIANCE_TYPES.join(", ")}`);
      const rows = await compliancePolicyPage(d.ctx, p, {
        after: listing.after,
        limit: listing.pageSize + 1,
        types,
      });
      const { items, next_page_token } = pageOf(rows, listing, compliancePolicyOut);
      return { compliance_policies: items, next_page_token };
    },
  });
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
