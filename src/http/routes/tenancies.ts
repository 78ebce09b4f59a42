import { z } from "zod";
import {
  publicInfo,
  renameTenancy,
  rootPrincipals,
  selfInfo,
  setRootPrincipals,
} from "../../services/identity/tenancies.js";
import { pathUuid } from "../../verify/primitives.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import { changingAccess } from "../verb-routes.js";

const BASE = "/archivist/v1/tenancies";
const group = "tenanciesv1";
const principal = z.object({
  issuer: z.string().max(1024).optional(),
  subject: z.string().min(1, "subject is required").max(1024),
  display_name: z.string().max(1024).optional(),
  email: z.string().optional(),
});

/** Tenancy information and its administrators (root principals). */
export function tenancyRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "get",
    path: `${BASE}/self`,
    group,
    auth: "token",
    summary: "The caller's tenancy",
    handler: ({ principal: p }) => selfInfo(d.ctx, p),
  });
  t.add({
    method: "patch",
    path: `${BASE}/self`,
    group,
    auth: "token",
    summary: "Rename the caller's tenancy",
    body: z.object({ display_name: z.string().min(1).max(128) }),
    handler: ({ principal: p, body }) => renameTenancy(d.ctx, p, body.display_name),
  });
  t.add({
    method: "get",
    path: `${BASE}/root_principals`,
    group,
    auth: "token",
    summary: "List the tenancy administrators",
    handler: ({ principal: p }) => rootPrincipals(d.ctx, p),
  });
  t.add(
    changingAccess(d, {
      method: "patch",
      path: `${BASE}/root_principals`,
      group,
      auth: "token",
      summary: "Replace the tenancy administrators",
      body: z.object({ root_principals: z.array(principal) }),
      handler: ({ principal: p, body }) => setRootPrincipals(d.ctx, p, body.root_principals),
    }),
  );
  t.add({
    method: "get",
    path: `${BASE}/{uuid}:publicinfo`,
    group,
    auth: "token",
    summary: "Public information of a tenancy",
    handler: ({ params }) => publicInfo(d.ctx, pathUuid(params.uuid, "tenancy")),
  });
}
