import { z } from "zod";
import { pathUuid } from "../../errors/path-uuid.js";
import {
  createLocation,
  locationOut,
  locationSource,
  patchLocation,
  readLocation,
  readLocationPermissions,
  removeLocation,
  setLocationPermissions,
} from "../../services/records/locations.js";
import { crudRoutes } from "../crud-routes.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";

const BASE = "/archivist/v2/locations";
const group = "locationsv2";
const location = z.object({
  display_name: z.string().optional(),
  description: z.string().optional(),
  latitude: z.number().min(-90).max(90).optional(),
  longitude: z.number().min(-180).max(180).optional(),
  attributes: z.record(z.string(), z.unknown()).optional(),
});
const permissions = z.object({
  permissions: z.object({
    subject_identities: z.array(z.string().regex(/^subjects\/[0-9a-f-]{36}$/, "must be subjects/<uuid>")),
  }),
});

/** Locations: CRUD, filters, permissions. */
export function locationRoutes(t: RouteTable, d: HttpDeps): void {
  const id = (params: Record<string, string>) => pathUuid(params.uuid, "location");
  crudRoutes(t, d, {
    base: BASE,
    group,
    noun: "location",
    list: {
      summary: "List locations",
      collection: "locations",
      rows: ({ principal }, q) => locationSource(d.ctx, principal, q),
      shape: locationOut,
    },
    create: {
      summary: "Create a location",
      body: location,
      run: (p, body) => createLocation(d.ctx, p, body),
    },
    read: { summary: "Get a location", run: async (p, id) => locationOut(await readLocation(d.ctx, p, id)) },
    patch: {
      summary: "Update a location",
      body: location,
      run: (p, id, body) => patchLocation(d.ctx, p, id, body),
    },
    remove: { summary: "Delete a location", run: (p, id) => removeLocation(d.ctx, p, id) },
  });
  t.add({
    method: "get",
    path: `${BASE}/{uuid}/permissions`,
    group,
    auth: "token",
    summary: "Location permissions",
    handler: async ({ principal: p, params }) => {
      const row = await readLocationPermissions(d.ctx, p, id(params));
      return { location_identity: `locations/${row.id}`, permissions: row.permissions };
    },
  });
  t.add({
    method: "patch",
    path: `${BASE}/{uuid}/permissions`,
    group,
    auth: "token",
    summary: "Replace location permissions",
    body: permissions,
    handler: ({ principal: p, params, body }) =>
      setLocationPermissions(d.ctx, p, id(params), body.permissions.subject_identities),
  });
}
