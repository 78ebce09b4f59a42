import type { LocationListSpec } from "../../core/filters/list-spec.js";
import type { Queryable } from "../drivers/db.js";
import { anyOf, keysetSource, type RowSource } from "../query/row-source.js";
import { Where } from "../query/sql.js";
import { tenantTable } from "../query/tenant-table.js";
import { restrictRows } from "./access-sql.js";
import { type AttributeTable, addListFilters } from "./attribute-sql.js";

export interface LocationRow {
  seq: number;
  id: string;
  tenant_id: string;
  display_name: string;
  description: string;
  latitude: number | null;
  longitude: number | null;
  attributes: Record<string, unknown>;
  owner: string;
  permissions: { subject_identities: string[] };
}

type LocationPatchable =
  | "display_name"
  | "description"
  | "latitude"
  | "longitude"
  | "attributes"
  | "permissions";
const table = tenantTable<LocationRow, LocationPatchable>({
  table: "locations",
  columns: [
    "seq",
    "id",
    "tenant_id",
    "display_name",
    "description",
    "latitude",
    "longitude",
    "attributes",
    "owner",
    "permissions",
  ],
  json: ["attributes", "permissions"],
  patchable: ["display_name", "description", "latitude", "longitude", "attributes", "permissions"],
});

export const getLocation = table.get;

/** Whether the tenancy has this location (an asset's home must name one). */
export async function locationExists(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  const rows = await db.query("select 1 from locations where tenant_id = $1 and id = $2", [tenantId, id]);
  return rows.length > 0;
}

export const insertLocation = table.insert;
/** Replaces the given fields whole (a latitude or longitude of null clears it). */
export const updateLocation = table.update;
export const deleteLocation = table.remove;

/** The locations table as its list filters it by attribute. */
const LOCATION_LIST: AttributeTable = {
  table: "locations",
  columns: { attributes: "attributes" },
  tenantColumn: "tenant_id",
};

/** The asset attribute naming an asset's home location (`locations/<uuid>`). */
export const HOME_LOCATION_ATTRIBUTE = "arc_home_location_identity";

/** Restricts a locations query to one tenancy's. */
export function locationsOfTenancy(w: Where, tenantId: string): void {
  w.and(`tenant_id = ${w.p(tenantId)}`);
}

/** Restricts a locations query to none at all. */
export function noLocations(w: Where): void {
  w.and("false");
}

/**
 * Restricts a locations query to the homes of the assets that `restrict` keeps (its
 * columns unqualified, over `assets`).
 */
export function homesOfAssets(w: Where, restrict: (assets: Where) => void): void {
  const assets = new Where(w.params);
  restrict(assets);
  w.params.push(...assets.params.slice(w.params.length));
  w.and(
    `exists (select 1 from assets where ${assets.sql} and assets.attributes->>'${HOME_LOCATION_ATTRIBUTE}' = 'locations/' || locations.id::text)`,
  );
}

/** Restricts a locations query to the one with this id. */
export function locationWithId(w: Where, id: string): void {
  w.and(`id = ${w.p(id)}`);
}

/** Adds a location list's filters on names and descriptions: any of the values given, for each. */
export function filterLocations(
  w: Where,
  f: { displayNames?: readonly string[] | undefined; descriptions?: readonly string[] | undefined },
): void {
  anyOf(w, "display_name", f.displayNames);
  anyOf(w, "description", f.descriptions);
}

/** Locations matching a filter the caller built (attribute filters included). */
function locationRows(db: Queryable, where: Where): RowSource<LocationRow> {
  return keysetSource(db, "locations", table.select, where);
}

/** The WHERE clause of a location list (its tenancy and access first, then its filters). */
export function locationWhere(spec: LocationListSpec): Where {
  const w = new Where();
  locationsOfTenancy(w, spec.tenantId);
  const access = spec.access;
  if (access.kind === "none") noLocations(w);
  else if (access.kind === "homes")
    homesOfAssets(w, (assets) => restrictRows(assets, "assets", access.assets));
  if (spec.id !== undefined) locationWithId(w, spec.id);
  filterLocations(w, spec);
  addListFilters(w, spec.filters, LOCATION_LIST);
  return w;
}

/** The locations a list asks for. */
export function locationList(db: Queryable, spec: LocationListSpec): RowSource<LocationRow> {
  return locationRows(db, locationWhere(spec));
}

export const countLocations = table.count;
