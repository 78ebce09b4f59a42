import { randomUUID } from "node:crypto";
import type { Ctx, Principal } from "../../context.js";
import { hasName } from "../../core/access/index.js";
import { LOCATION_FILTER_PREFIXES, type LocationAccess } from "../../core/filters/list-spec.js";
import { notFound } from "../../errors/api-error.js";
import type { RowSource } from "../../store/query/row-source.js";
import {
  countLocations,
  deleteLocation,
  getLocation,
  HOME_LOCATION_ATTRIBUTE,
  insertLocation,
  type LocationRow,
  locationList,
  updateLocation,
} from "../../store/records/locations.js";
import { viewFor } from "../access/caller-view.js";
import { adminCollection } from "../admin-collection.js";
import { tenantWalletAddress } from "../identity/tenant-wallet.js";
import { listFilters, valuesOf } from "./list-query.js";

export interface LocationInput {
  display_name?: string | undefined;
  description?: string | undefined;
  latitude?: number | undefined;
  longitude?: number | undefined;
  attributes?: Record<string, unknown> | undefined;
}

/** API shape of a location. */
export function locationOut(r: LocationRow) {
  return {
    identity: `locations/${r.id}`,
    display_name: r.display_name,
    description: r.description,
    latitude: r.latitude ?? 0,
    longitude: r.longitude ?? 0,
    attributes: r.attributes,
    owner: r.owner,
    tenant: `tenant/${r.tenant_id}`,
  };
}

// Locations are tenancy configuration: administrators manage them. Secured by default like
// the records: a location is read by others only as the home (`arc_home_location_identity`) of
// an asset their access policies let them read, that attribute included (docs/api.md).
const locations = adminCollection({
  forbidden: "only administrators can change locations",
  item: "location",
  out: locationOut,
  delete: deleteLocation,
  quota: { key: "locations", label: "locations", count: countLocations },
});

/** Which of its tenancy's locations the caller may read (see above). */
async function locationAccess(ctx: Pick<Ctx, "caches" | "db">, p: Principal): Promise<LocationAccess> {
  if (p.isAdmin) return { kind: "all" };
  const view = await viewFor(ctx, p);
  if (!hasName(view.filterable, HOME_LOCATION_ATTRIBUTE)) return { kind: "none" };
  return { kind: "homes", assets: view.restriction };
}

export async function createLocation(ctx: Pick<Ctx, "db" | "keys">, p: Principal, input: LocationInput) {
  locations.requireAdmin(p);
  const owner = await tenantWalletAddress(ctx.keys, p.tenantId);
  const row = await locations.insertUnderQuota(ctx.db, p.tenantId, (tx) =>
    insertLocation(tx, {
      id: randomUUID(),
      tenant_id: p.tenantId,
      display_name: input.display_name ?? "",
      description: input.description ?? "",
      latitude: input.latitude ?? null,
      longitude: input.longitude ?? null,
      attributes: input.attributes ?? {},
      owner,
      permissions: { subject_identities: [] },
    }),
  );
  return locationOut(row);
}

export async function readLocation(ctx: Pick<Ctx, "caches" | "db">, p: Principal, id: string) {
  const row = p.isAdmin
    ? await getLocation(ctx.db, p.tenantId, id)
    : (
        await locationList(ctx.db, {
          tenantId: p.tenantId,
          access: await locationAccess(ctx, p),
          id,
          filters: [],
        }).page(0, 1)
      )[0];
  if (!row) throw notFound("location");
  return row;
}

/** A location's sharing settings: administrators only, like the rest of its management. */
export async function readLocationPermissions(ctx: Pick<Ctx, "caches" | "db">, p: Principal, id: string) {
  locations.requireAdmin(p);
  return readLocation(ctx, p, id);
}

export const patchLocation = locations.patcher((db, tenantId, id, patch: LocationInput) =>
  updateLocation(db, tenantId, id, patch),
);

export const removeLocation = locations.remove;

export async function setLocationPermissions(
  ctx: Pick<Ctx, "db">,
  p: Principal,
  id: string,
  subjects: string[],
) {
  const row = await locations.write(ctx, p, (db, tenantId) =>
    updateLocation(db, tenantId, id, { permissions: { subject_identities: subjects } }),
  );
  return { location_identity: `locations/${row.id}`, permissions: row.permissions };
}

/** The locations the caller may list, filtered by the query (names, descriptions, attributes). */
export async function locationSource(
  ctx: Pick<Ctx, "caches" | "db">,
  p: Principal,
  pairs: Array<[string, string]>,
): Promise<RowSource<LocationRow>> {
  const access = await locationAccess(ctx, p);
  return locationList(ctx.db, {
    tenantId: p.tenantId,
    access,
    displayNames: valuesOf(pairs, "display_name"),
    descriptions: valuesOf(pairs, "description"),
    filters: listFilters(pairs, LOCATION_FILTER_PREFIXES),
  });
}
