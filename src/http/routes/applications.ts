import { pathUuid } from "../../core/api/ids.js";
import {
  applicationOut,
  applicationSource,
  createApplication,
  patchApplication,
  readApplication,
  regenerateSecret,
  removeApplication,
} from "../../services/identity/applications.js";
import type { HttpDeps } from "../deps.js";
import { listRoute } from "../listing.js";
import type { RouteTable } from "../route.js";
import {
  application,
  applicationCreate,
  applicationList,
  applicationPatch,
} from "../schemas/applications.js";
import { emptyBody } from "../schemas/common.js";

const BASE = "/archivist/iam/v1/applications";
const group = "appregistrationsv1";

/** App registrations: the six endpoints of the interface. */
export function applicationRoutes(t: RouteTable, d: HttpDeps): void {
  t.add(
    listRoute(d.ctx, {
      path: BASE,
      group,
      summary: "List application registrations",
      query: applicationList,
      collection: "applications",
      rows: ({ principal }, q) => applicationSource(d.ctx, principal, q),
      shape: (r) => applicationOut(r),
    }),
  );
  t.add({
    method: "post",
    path: BASE,
    group,
    auth: "token",
    summary: "Create an application registration",
    body: applicationCreate,
    response: application,
    handler: ({ principal, body }) => createApplication(d.ctx, principal, body),
  });
  t.add({
    method: "get",
    path: `${BASE}/{uuid}`,
    group,
    auth: "token",
    summary: "Get an application registration",
    response: application,
    handler: ({ principal, params }) =>
      readApplication(d.ctx, principal, pathUuid(params.uuid, "application")),
  });
  t.add({
    method: "patch",
    path: `${BASE}/{uuid}`,
    group,
    auth: "token",
    summary: "Update an application registration",
    body: applicationPatch,
    response: application,
    handler: ({ principal, params, body }) =>
      patchApplication(d.ctx, principal, pathUuid(params.uuid, "application"), body),
  });
  t.add({
    method: "post",
    path: `${BASE}/{uuid}:regenerate-secret`,
    group,
    auth: "token",
    summary: "Regenerate the secret",
    body: emptyBody,
    response: application,
    handler: ({ principal, params }) =>
      regenerateSecret(d.ctx, principal, pathUuid(params.uuid, "application")),
  });
  t.add({
    method: "delete",
    path: `${BASE}/{uuid}`,
    group,
    auth: "token",
    summary: "Delete an application registration",
    handler: async ({ principal, params }) => {
      await removeApplication(d.ctx, principal, pathUuid(params.uuid, "application"));
      d.auth.invalidate();
      return {};
    },
  });
}
