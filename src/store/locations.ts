import type { AttributeTable } from "./attribute-sql.js";
import type { Queryable } from "./db.js";
import { anyOf, keysetSource, type RowSource } from "./row-source.js";
import { Where } from "./sql.js";

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

const COLUMNS =
  "seq, id, tenant_id, display_name, description, latitude, longitude, attributes, owner, permissions";

export async function getLocation(
  db: Queryable,
  tenantId: string,
  id: string,
): Promise<LocationRow | undefined> {
  return (
    await db.query<LocationRow>(`select ${COLUMNS} from locations where tenant_id = $1 and id = $2`, [
      tenantId,
      id,
    ])
  )[0];
}

/** Whether the tenancy has this location (an asset's home must name one). */
export async function locationExists(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  const rows = await db.query("select 1 from locations where tenant_id = $1 and id = $2", [tenantId, id]);
  return rows.length > 0;
}

export async function insertLocation(db: Queryable, l: Omit<LocationRow, "seq">): Promise<LocationRow> {
  const rows = await db.query<LocationRow>(
    `insert into locations (id, tenant_id, display_name, description, latitude, longitude, attributes, owner, permissions)
     values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9::jsonb) returning ${COLUMNS}`,
    [
      l.id,
      l.tenant_id,
      l.display_name,
      l.description,
      l.latitude,
      l.longitude,
      JSON.stringify(l.attributes),
      l.owner,
      JSON.stringify(l.permissions),
    ],
  );
  return rows[0] as LocationRow;
}

/** Replaces the given fields whole. */
export async function updateLocation(
  db: Queryable,
  tenantId: string,
  id: string,
  patch: Partial<
    Pick<
      LocationRow,
      "display_name" | "description" | "latitude" | "longitude" | "attributes" | "permissions"
    >
  >,
): Promise<LocationRow | undefined> {
  const rows = await db.query<LocationRow>(
    `update locations set display_name = coalesce($3, display_name), description = coalesce($4, description),
       latitude = case when $5::boolean then $6 else latitude end, longitude = case when $7::boolean then $8 else longitude end,
       attributes = coalesce($9::jsonb, attributes), permissions = coalesce($10::jsonb, permissions)
     where tenant_id = $1 and id = $2 returning ${COLUMNS}`,
    [
      tenantId,
      id,
      patch.display_name ?? null,
      patch.description ?? null,
      "latitude" in patch,
      patch.latitude ?? null,
      "longitude" in patch,
      patch.longitude ?? null,
      patch.attributes ? JSON.stringify(patch.attributes) : null,
      patch.permissions ? JSON.stringify(patch.permissions) : null,
    ],
  );
  return rows[0];
}

export async function deleteLocation(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  return (
    (await db.query("delete from locations where tenant_id = $1 and id = $2 returning id", [tenantId, id]))
      .length > 0
  );
}

/** The locations table as its list filters it by attribute. */
export const LOCATION_LIST: AttributeTable = {
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
 * Restricts a locations query to the homes of the assets that `restrictAssets` keeps (its
 * columns unqualified, over `assets`).
 */
export function homesOfAssets(w: Where, restrictAssets: (assets: Where) => void): void {
  const assets = new Where(w.params);
  restrictAssets(assets);
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
export function locationRows(db: Queryable, where: Where): RowSource<LocationRow> {
  return keysetSource(db, "locations", COLUMNS, where);
}

export async function countLocations(db: Queryable, tenantId: string): Promise<number> {
  return (
    (
      await db.query<{ n: number }>("select count(*)::int as n from locations where tenant_id = $1", [
        tenantId,
      ])
    )[0]?.n ?? 0
  );
}
