import type { Queryable } from "../drivers/db.js";
import { keysetSource, type RowSource } from "../query/row-source.js";
import { Where } from "../query/sql.js";
import { tenantTable } from "../query/tenant-table.js";

export interface MemberRow {
  seq: number;
  id: string;
  tenant_id: string;
  email: string;
  display_name: string;
  roles: string[];
  active: boolean;
}

const table = tenantTable<MemberRow, "roles" | "active">({
  table: "members",
  columns: ["seq", "id", "tenant_id", "email", "display_name", "roles", "active"],
  json: ["roles"],
  patchable: ["roles", "active"],
});
const COLUMNS = table.select;

/** The tenancy's member with that e-mail address, in any case. */
export const getMemberByEmail = (db: Queryable, tenantId: string, email: string) =>
  table.one(db, "tenant_id = $1 and lower(email) = lower($2)", [tenantId, email]);

/** Inserts a member, or refreshes display name and roles of the one with that e-mail. */
export async function upsertMember(db: Queryable, m: Omit<MemberRow, "seq">): Promise<MemberRow> {
  const rows = await db.query<MemberRow>(
    `insert into members (id, tenant_id, email, display_name, roles, active) values ($1, $2, $3, $4, $5::jsonb, $6)
     on conflict (tenant_id, email) do update set display_name = excluded.display_name, roles = excluded.roles
     returning ${COLUMNS}`,
    [m.id, m.tenant_id, m.email, m.display_name, JSON.stringify(m.roles), m.active],
  );
  return rows[0] as MemberRow;
}

export type MemberState = "active" | "inactive" | "both";

/** A tenancy's members: the active, the inactive or both. */
export function memberRows(db: Queryable, tenantId: string, state: MemberState): RowSource<MemberRow> {
  return table.rows(db, tenantId, (w) => {
    if (state !== "both") w.and(`active = ${w.p(state === "active")}`);
  });
}

/** Creates the member of an accepted invite, or reactivates the one with that e-mail (no roles either way). */
export async function admitMember(
  db: Queryable,
  m: Omit<MemberRow, "seq" | "roles" | "active">,
): Promise<MemberRow> {
  const rows = await db.query<MemberRow>(
    `insert into members (id, tenant_id, email, display_name, roles, active) values ($1, $2, $3, $4, '[]'::jsonb, true)
     on conflict (tenant_id, email) do update set active = true, roles = '[]'::jsonb,
       display_name = coalesce(nullif(excluded.display_name, ''), members.display_name)
     returning ${COLUMNS}`,
    [m.id, m.tenant_id, m.email, m.display_name],
  );
  return rows[0] as MemberRow;
}

export interface MembershipRow {
  seq: number;
  id: string;
  tenant_id: string;
  tenancy_name: string;
}

/** The active memberships of one person (issuer and e-mail) across tenancies. */
export function membershipRows(db: Queryable, issuer: string, email: string): RowSource<MembershipRow> {
  const w = new Where([issuer, email]).and(
    "t.oidc->>'issuer' = $1 and lower(m.email) = lower($2) and m.active",
  );
  return keysetSource(
    db,
    "members m join tenancies t on t.id = m.tenant_id",
    "m.seq, m.id, m.tenant_id, t.display_name as tenancy_name",
    w,
    "m.seq",
  );
}

/** Writes the given fields; undefined when the member is not in that tenancy. */
export const updateMember = table.update;
