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
} from "../../store/identity/access-policies.js";
import { adminCollection, identified } from "../admin-collection.js";
import { valuesOf } from "../records/list-query.js";
import { recordPolicyAudit } from "./policy-audit.js";

/** API shape of an access policy (stored in wire form: filter strings exactly as sent). */
export function accessPolicyOut(row: AccessPolicyRow) {
  return {
    ...identified("access_policies", row, ["display_name", "description", "filters", "access_permissions"]),
    tenant: tenantIdentity(row.tenant_id),
  };
}

// Every write forgets the policies the context keeps for deciding access (a change applies at once).
const policies = adminCollection({
  forbidden: "owner privileges are needed to manage access policies",
  item: "access policy",
  out: accessPolicyOut,
  get: getAccessPolicy,
  delete: deleteAccessPolicy,
  list: (db, tenantId, pairs) =>
    accessPolicyRows(db, tenantId, {
      displayName: valuesOf(pairs, "display_name"),
      description: valuesOf(pairs, "description"),
    }),
  quota: { key: "access_policies", label: "access policies", count: countAccessPolicies },
  forget: (ctx: Pick<Ctx, "caches" | "db">) => ctx.caches.accessPolicies.forget(),
});

/** Creates a policy after the policy core validated every field, under the `access_policies` quota if set. */
export async function createAccessPolicy(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "db" | "writePath">,
  p: Principal,
  body: unknown,
) {
  policies.requireAdmin(p);
  const wire = accessPolicyToWire(validateAccessPolicyInput(body));
  const row = await policies.insertUnderQuota(ctx.db, p.tenantId, (tx) =>
    insertAccessPolicy(tx, { id: randomUUID(), tenant_id: p.tenantId, ...wire }),
  );
  ctx.caches.accessPolicies.forget();
  await recordPolicyAudit(ctx, row, "created");
  return accessPolicyOut(row);
}

export const readAccessPolicy = policies.read;

/** The tenancy's policies an administrator lists, filtered by the query. */
export const accessPolicySource = policies.source;

/** PATCH: each field sent (validated like on create) replaces the stored one whole. */
export async function patchAccessPolicy(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "db" | "writePath">,
  p: Principal,
  id: string,
  body: unknown,
) {
  const row = await policies.write(ctx, p, (db, tenantId) => {
    const patch = validateAccessPolicyPatch(body);
    return updateAccessPolicy(db, tenantId, id, {
      display_name: patch.display_name,
      description: patch.description,
      filters: patch.filters && policyFiltersToWire(patch.filters),
      access_permissions: patch.access_permissions?.map(accessPermissionToWire),
    });
  });
  await recordPolicyAudit(ctx, row, "updated");
  return accessPolicyOut(row);
}

export const removeAccessPolicy = policies.remove;
