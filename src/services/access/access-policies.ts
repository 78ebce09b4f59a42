import { randomUUID } from "node:crypto";
import { type Ctx, type Principal, tenantIdentity } from "../../context.js";
import {
  accessPermissionToWire,
  accessPolicyToWire,
  validateAccessPolicyInput,
  validateAccessPolicyPatch,
} from "../../core/access/index.js";
import { policyFiltersToWire } from "../../core/filters/index.js";
import {
  type AccessPolicyRow,
  accessPolicyRows,
  countAccessPolicies,
  deleteAccessPolicy,
  getAccessPolicy,
  insertAccessPolicy,
  updateAccessPolicy,
} from "../../store/access-policies.js";
import type { RowSource } from "../../store/row-source.js";
import { lockTenancy } from "../../store/tenancies.js";
import { forbidden, notFound, quotaExceeded } from "../../verify/primitives.js";
import { valuesOf } from "../records/list-query.js";
import { recordPolicyAudit } from "./policy-audit.js";

function requireAdmin(p: Principal): void {
  if (!p.isAdmin) throw forbidden("owner privileges are needed to manage access policies");
}

/** API shape of an access policy (stored in wire form: filter strings exactly as sent). */
export function accessPolicyOut(row: AccessPolicyRow) {
  return {
    identity: `access_policies/${row.id}`,
    display_name: row.display_name,
    description: row.description,
    filters: row.filters,
    access_permissions: row.access_permissions,
    tenant: tenantIdentity(row.tenant_id),
  };
}

/** Creates a policy after the policy core validated every field, under the `access_policies` quota if set. */
export async function createAccessPolicy(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "db" | "keys" | "wake">,
  p: Principal,
  body: unknown,
) {
  requireAdmin(p);
  const wire = accessPolicyToWire(validateAccessPolicyInput(body));
  const row = await ctx.db.transaction(async (tx) => {
    const limit = (await lockTenancy(tx, p.tenantId))?.quotas.access_policies;
    if (limit !== undefined && (await countAccessPolicies(tx, p.tenantId)) >= limit)
      throw quotaExceeded("access policies", limit);
    return insertAccessPolicy(tx, { id: randomUUID(), tenant_id: p.tenantId, ...wire });
  });
  ctx.caches.accessPolicies.forget();
  await recordPolicyAudit(ctx, row, "created");
  return accessPolicyOut(row);
}

export async function readAccessPolicy(ctx: Pick<Ctx, "db">, p: Principal, id: string) {
  requireAdmin(p);
  const row = await getAccessPolicy(ctx.db, p.tenantId, id);
  if (!row) throw notFound("access policy");
  return accessPolicyOut(row);
}

/** The tenancy's policies an administrator lists, filtered by the query. */
export function accessPolicySource(
  ctx: Pick<Ctx, "db">,
  p: Principal,
  pairs: Array<[string, string]>,
): RowSource<AccessPolicyRow> {
  requireAdmin(p);
  return accessPolicyRows(ctx.db, p.tenantId, {
    displayName: valuesOf(pairs, "display_name"),
    description: valuesOf(pairs, "description"),
  });
}

/** PATCH: each field sent (validated like on create) replaces the stored one whole. */
export async function patchAccessPolicy(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "db" | "keys" | "wake">,
  p: Principal,
  id: string,
  body: unknown,
) {
  requireAdmin(p);
  const patch = validateAccessPolicyPatch(body);
  const row = await updateAccessPolicy(ctx.db, p.tenantId, id, {
    display_name: patch.display_name,
    description: patch.description,
    filters: patch.filters && policyFiltersToWire(patch.filters),
    access_permissions: patch.access_permissions?.map(accessPermissionToWire),
  });
  ctx.caches.accessPolicies.forget();
  if (!row) throw notFound("access policy");
  await recordPolicyAudit(ctx, row, "updated");
  return accessPolicyOut(row);
}

export async function removeAccessPolicy(
  ctx: Pick<Ctx, "caches" | "db">,
  p: Principal,
  id: string,
): Promise<void> {
  requireAdmin(p);
  const deleted = await deleteAccessPolicy(ctx.db, p.tenantId, id);
  ctx.caches.accessPolicies.forget();
  if (!deleted) throw notFound("access policy");
}
