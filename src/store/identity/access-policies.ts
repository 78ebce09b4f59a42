import type { Queryable } from "../drivers/db.js";
import { type BriefCache, briefCache } from "../query/brief-cache.js";
import { anyOf, type RowSource } from "../query/row-source.js";
import { tenantTable } from "../query/tenant-table.js";

export interface AccessPolicyRow {
  seq: number;
  id: string;
  tenant_id: string;
  display_name: string;
  description: string;
  filters: Array<{ or: string[] }>;
  access_permissions: Array<Record<string, unknown>>;
}

type AccessPolicyPatchable = "display_name" | "description" | "filters" | "access_permissions";
const table = tenantTable<AccessPolicyRow, AccessPolicyPatchable>({
  table: "access_policies",
  columns: ["seq", "id", "tenant_id", "display_name", "description", "filters", "access_permissions"],
  json: ["filters", "access_permissions"],
  patchable: ["display_name", "description", "filters", "access_permissions"],
});

export const getAccessPolicy = table.get;

/** A tenancy's policies, optionally by display name or description. */
export function accessPolicyRows(
  db: Queryable,
  tenantId: string,
  f: { displayName?: string[] | undefined; description?: string[] | undefined },
): RowSource<AccessPolicyRow> {
  return table.rows(db, tenantId, (w) => {
    anyOf(w, "display_name", f.displayName);
    anyOf(w, "description", f.description);
  });
}

/** Every policy of a tenancy, oldest first (evaluating access needs them all). */
export const allAccessPolicies = table.all;

/**
 * `allAccessPolicies` for deciding access, kept for up to a second (a context holds one): every
 * request of a caller that is not an administrator evaluates its tenancy's policies, and only
 * policy writes change them (each forgets the kept answers). A change made in this process applies
 * at once, one made in another within a second. Not to be modified.
 */
export type AccessPolicyCache = BriefCache<readonly AccessPolicyRow[]>;

export const accessPolicyCache = (): AccessPolicyCache =>
  briefCache<readonly AccessPolicyRow[]>(1000, allAccessPolicies);

export const countAccessPolicies = table.count;
export const insertAccessPolicy = table.insert;
/** Writes the given fields; undefined when the policy is not in that tenancy. */
export const updateAccessPolicy = table.update;
export const deleteAccessPolicy = table.remove;
