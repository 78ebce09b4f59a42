import { type BriefCache, briefCache } from "./brief-cache.js";
import type { Queryable } from "./db.js";
import { anyOf, keysetSource, type RowSource } from "./row-source.js";
import { Where } from "./sql.js";

export interface AccessPolicyRow {
  seq: number;
  id: string;
  tenant_id: string;
  display_name: string;
  description: string;
  filters: Array<{ or: string[] }>;
  access_permissions: Array<Record<string, unknown>>;
}

const COLUMNS = "seq, id, tenant_id, display_name, description, filters, access_permissions";

export async function getAccessPolicy(
  db: Queryable,
  tenantId: string,
  id: string,
): Promise<AccessPolicyRow | undefined> {
  return (
    await db.query<AccessPolicyRow>(
      `select ${COLUMNS} from access_policies where tenant_id = $1 and id = $2`,
      [tenantId, id],
    )
  )[0];
}

/** A tenancy's policies, optionally by display name or description. */
export function accessPolicyRows(
  db: Queryable,
  tenantId: string,
  f: { displayName?: string[] | undefined; description?: string[] | undefined },
): RowSource<AccessPolicyRow> {
  const w = new Where([tenantId]).and("tenant_id = $1");
  anyOf(w, "display_name", f.displayName);
  anyOf(w, "description", f.description);
  return keysetSource(db, "access_policies", COLUMNS, w);
}

/** Every policy of a tenancy, oldest first (evaluating access needs them all). */
export function allAccessPolicies(db: Queryable, tenantId: string): Promise<AccessPolicyRow[]> {
  return db.query<AccessPolicyRow>(
    `select ${COLUMNS} from access_policies where tenant_id = $1 order by seq`,
    [tenantId],
  );
}

/**
 * `allAccessPolicies` for deciding access, kept for up to a second (a context holds one): every
 * request of a caller that is not an administrator evaluates its tenancy's policies, and only
 * policy writes change them (each forgets the kept answers). A change made in this process applies
 * at once, one made in another within a second. Not to be modified.
 */
export type AccessPolicyCache = BriefCache<readonly AccessPolicyRow[]>;

export const accessPolicyCache = (): AccessPolicyCache =>
  briefCache<readonly AccessPolicyRow[]>(1000, allAccessPolicies);

export async function countAccessPolicies(db: Queryable, tenantId: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    "select count(*)::int as n from access_policies where tenant_id = $1",
    [tenantId],
  );
  return rows[0]?.n ?? 0;
}

export async function insertAccessPolicy(
  db: Queryable,
  a: Omit<AccessPolicyRow, "seq">,
): Promise<AccessPolicyRow> {
  const rows = await db.query<AccessPolicyRow>(
    `insert into access_policies (id, tenant_id, display_name, description, filters, access_permissions)
     values ($1, $2, $3, $4, $5::jsonb, $6::jsonb) returning ${COLUMNS}`,
    [
      a.id,
      a.tenant_id,
      a.display_name,
      a.description,
      JSON.stringify(a.filters),
      JSON.stringify(a.access_permissions),
    ],
  );
  return rows[0] as AccessPolicyRow;
}

/** Writes the given fields; undefined when the policy is not in that tenancy. */
export async function updateAccessPolicy(
  db: Queryable,
  tenantId: string,
  id: string,
  patch: Partial<Pick<AccessPolicyRow, "display_name" | "description" | "filters" | "access_permissions">>,
): Promise<AccessPolicyRow | undefined> {
  const rows = await db.query<AccessPolicyRow>(
    `update access_policies set
       display_name = coalesce($3, display_name),
       description = coalesce($4, description),
       filters = coalesce($5::jsonb, filters),
       access_permissions = coalesce($6::jsonb, access_permissions)
     where tenant_id = $1 and id = $2 returning ${COLUMNS}`,
    [
      tenantId,
      id,
      patch.display_name ?? null,
      patch.description ?? null,
      patch.filters ? JSON.stringify(patch.filters) : null,
      patch.access_permissions ? JSON.stringify(patch.access_permissions) : null,
    ],
  );
  return rows[0];
}

export async function deleteAccessPolicy(db: Queryable, tenantId: string, id: string): Promise<boolean> {
  const rows = await db.query("delete from access_policies where tenant_id = $1 and id = $2 returning id", [
    tenantId,
    id,
  ]);
  return rows.length > 0;
}
