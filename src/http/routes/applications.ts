import { pathUuid } from "../../errors/path-uuid.js";
import {
  applicationOut,
  applicationSource,
  createApplication,
  patchApplication,
  readApplication,
  regenerateSecret,
  removeApplication,
} from "../../services/identity/applications.js";
import { crudRoutes } from "../crud-routes.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import {
  application,
  applicationCreate,
  applicationList,
  applicationPatch,
} from "../schemas/applications.js";
import { verbRoute } from "../verb-routes.js";

const BASE = "/archivist/iam/v1/applications";
const group = "appregistrationsv1";

/** App registrations: the six endpoints of the interface. */
export function applicationRoutes(t: RouteTable, d: HttpDeps): void {
  crudRoutes(t, d, {
    base: BASE,
    group,
    noun: "application",
    list: {
      summary: "List application registrations",
      query: applicationList,
      collection: "applications",
      rows: ({ principal }, q) => applicationSource(d.ctx, principal, q),
      shape: (r) => applicationOut(r),
    },
    create: {
      summary: "Create an application registration",
      body: applicationCreate,
      response: application,
      run: (p, body) => createApplication(d.ctx, p, body),
    },
    read: {
      summary: "Get an application registration",
      response: application,
      run: (p, id) => readApplication(d.ctx, p, id),
    },
    patch: {
      summary: "Update an application registration",
      body: applicationPatch,
      response: application,
      run: (p, id, body) => patchApplication(d.ctx, p, id, body),
    },
    remove: {
      summary: "Delete an application registration",
      run: async (p, id) => {
        await removeApplication(d.ctx, p, id);
        d.auth.invalidate();
      },
    },
  });
  t.add(
    verbRoute(d, {
      item: `${BASE}/{uuid}`,
      verb: "regenerate-secret",
      group,
      summary: "Regenerate the secret",
      response: application,
      id: (params) => pathUuid(params.uuid, "application"),
      run: (p, id) => regenerateSecret(d.ctx, p, id),
    }),
  );
}
