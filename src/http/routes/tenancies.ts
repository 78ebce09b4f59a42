import type { z } from "zod";
import { pathUuid } from "../../errors/path-uuid.js";
import {
  publicInfo,
  renameTenancy,
  rootPrincipals,
  selfInfo,
  setRootPrincipals,
} from "../../services/identity/tenancies.js";
import type { HttpDeps } from "../deps.js";
import type { RouteSpec, RouteTable } from "../route.js";
import { rootPrincipalsBody, tenancyRename } from "../schemas/tenancies.js";
import { changingAccess } from "../verb-routes.js";

const BASE = "/archivist/v1/tenancies";

/** A route under the tenancies' path, for a caller with a token; a change sends its body. */
function tenancyRoute<B extends z.ZodType>(
  method: "get" | "patch",
  path: string,
  summary: string,
  handler: RouteSpec<B, z.ZodType, "token">["handler"],
  body?: B,
): RouteSpec<B, z.ZodType, "token"> {
  return { method, path: `${BASE}/${path}`, group: "tenanciesv1", auth: "token", summary, body, handler };
}

/** Tenancy information and its administrators (root principals). */
export function tenancyRoutes(t: RouteTable, d: HttpDeps): void {
  t.add(tenancyRoute("get", "self", "The caller's tenancy", ({ principal: p }) => selfInfo(d.ctx, p)));
  t.add(
    tenancyRoute(
      "patch",
      "self",
      "Rename the caller's tenancy",
      ({ principal: p, body }) => renameTenancy(d.ctx, p, body.display_name),
      tenancyRename,
    ),
  );
  t.add(
    tenancyRoute("get", "root_principals", "List the tenancy administrators", ({ principal: p }) =>
      rootPrincipals(d.ctx, p),
    ),
  );
  // Replacing the administrators changes who may do what.
  t.add(
    changingAccess(
      d,
      tenancyRoute(
        "patch",
        "root_principals",
        "Replace the tenancy administrators",
        ({ principal: p, body }) => setRootPrincipals(d.ctx, p, body.root_principals),
        rootPrincipalsBody,
      ),
    ),
  );
  t.add(
    tenancyRoute("get", "{uuid}:publicinfo", "Public information of a tenancy", ({ params }) =>
      publicInfo(d.ctx, pathUuid(params.uuid, "tenancy")),
    ),
  );
}
