import { eraseAttributes } from "../../services/lifecycle/erasure.js";
import { setErasurePolicy } from "../../services/lifecycle/erasure-policy.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import { erasureOut, erasurePolicy, erasureRequest } from "../schemas/erasure.js";

const group = "lifecyclev1";

/** Erasure beside the immutable log (docs/vcon-lifecycle.md, §4); administrators only. */
export function erasureRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "get",
    path: "/archivist/v1/erasure/policy",
    group,
    auth: "token",
    summary:
      "The attributes this tenancy's records commit by a salted hash, so that their values can be erased",
    response: erasurePolicy,
    handler: async ({ principal }) => ({
      attributes: await d.ctx.caches.erasurePolicies.get(d.ctx.db, principal.tenantId),
    }),
  });
  t.add({
    method: "put",
    path: "/archivist/v1/erasure/policy",
    group,
    auth: "token",
    summary: "Set the tenancy's erasable attributes (administrators); records made before keep their form",
    body: erasurePolicy,
    response: erasurePolicy,
    handler: async ({ principal, body }) => setErasurePolicy(d.ctx, principal, body.attributes),
  });
  t.add({
    method: "post",
    path: "/archivist/v1/erasures",
    group,
    auth: "token",
    summary:
      "Erase the values of a record's or a vCon's erasable attributes (administrators): recorded as a vcon_attributes_erased event; every receipt stays valid",
    body: erasureRequest,
    response: erasureOut,
    handler: async ({ principal, body }) => eraseAttributes(d.ctx, principal, body),
  });
}
