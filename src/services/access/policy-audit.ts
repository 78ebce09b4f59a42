import { randomUUID } from "node:crypto";
import type { Ctx } from "../../context.js";
import { type AccessPolicy, validateAccessPolicyInput } from "../../core/access/index.js";
import { compilePolicyFilters, matchPolicyFilters } from "../../core/filters/index.js";
import { assetRecord } from "../../formats/record/asset.js";
import { type AccessPolicyRow, allAccessPolicies, getAccessPolicy } from "../../store/access-policies.js";
import { type AssetRow, assetsMatchingAttributes, getAsset } from "../../store/assets.js";
import type { Queryable } from "../../store/db.js";
import { insertFreeEvents } from "../../store/free-events.js";

/** Assets of the tenancy whose current attributes match the policy's filters. */
function assetsMatching(db: Queryable, tenantId: string, policy: AccessPolicy): Promise<AssetRow[]> {
  return assetsMatchingAttributes(db, tenantId, (column, first) =>
    compilePolicyFilters(policy.filters, column, first),
  );
}

/** The trail of a policy's own records: where an administrator finds what it said, when. */
const policyTrail = (policyId: string) => `access_policies/${policyId}`;

/**
 * Records a policy's creation or change once, in its tenancy's log: an asset-free event on the
 * policy's own trail, carrying the policy as it now reads, accepted from the administrator who
 * made the change. Not on the trail of every asset it applies to, as it was until issue 74: an
 * asset's trail (a vCon's above all) holds that asset's records, and a policy over a tenancy's
 * million vCons wrote a million events inside one request. Which assets a policy applies to now is
 * `GET …/access_policies/<uuid>/assets`.
 */
export async function recordPolicyAudit(
  ctx: Pick<Ctx, "db" | "wake">,
  row: AccessPolicyRow,
  change: "created" | "updated",
  by: string,
): Promise<void> {
  const policy = {
    display_name: row.display_name,
    description: row.description,
    filters: row.filters,
    access_permissions: row.access_permissions,
  };
  await ctx.db.transaction((tx) =>
    insertFreeEvents(tx, [
      {
        id: randomUUID(),
        tenant_id: row.tenant_id,
        attributes: {
          arc_display_type: "arc_access_policy",
          arc_access_policy_identity: policyTrail(row.id),
          arc_access_policy_change: change,
          arc_access_policy: JSON.stringify(policy),
          arc_description: `access policy ${row.display_name} ${change}`,
        },
        trails: [policyTrail(row.id)],
        event_type: "",
        created_by: by,
        created_at: Date.now(),
      },
    ]),
  );
  ctx.wake.commit(row.tenant_id);
}

/** The assets one policy applies to (administrators only, checked by the caller). */
export async function policyAssets(ctx: Pick<Ctx, "db">, tenantId: string, policyId: string) {
  const row = await getAccessPolicy(ctx.db, tenantId, policyId);
  const assets = row && (await assetsMatching(ctx.db, tenantId, validateAccessPolicyInput(row)));
  return assets?.map((a) => assetRecord(a, a.attributes));
}

/** The policies that apply to one asset. */
export async function assetPolicies(
  ctx: Pick<Ctx, "db">,
  tenantId: string,
  assetId: string,
): Promise<AccessPolicyRow[] | undefined> {
  const asset = await getAsset(ctx.db, assetId);
  if (!asset || asset.tenant_id !== tenantId) return undefined;
  return (await allAccessPolicies(ctx.db, tenantId)).filter((r) =>
    matchPolicyFilters(validateAccessPolicyInput(r).filters, asset.attributes),
  );
}
