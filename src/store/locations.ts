import type { Queryable } from "./db.js";
import { keysetSource, type RowSource } from "./row-source.js";
import type { Where } from "./sql.js";

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
