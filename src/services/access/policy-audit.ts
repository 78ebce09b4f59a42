import type { Ctx } from "../../context.js";
import { type AccessPolicy, validateAccessPolicyInput } from "../../core/access/index.js";
import { compilePolicyFilters, matchPolicyFilters } from "../../core/filters/index.js";
import { assetRecord } from "../../formats/record/asset.js";
import type { Queryable } from "../../store/drivers/db.js";
import {
  type AccessPolicyRow,
  allAccessPolicies,
  getAccessPolicy,
} from "../../store/identity/access-policies.js";
import { type AssetRow, assetsMatchingAttributes, getAsset } from "../../store/records/assets.js";
import { internalPrincipal } from "../identity/principals.js";

const GROUP = 500;

/** Nothing written beside the audit records. */
const noMore = async () => undefined;

/** Assets of the tenancy whose current attributes match the policy's filters. */
function assetsMatching(db: Queryable, tenantId: string, policy: AccessPolicy): Promise<AssetRow[]> {
  return assetsMatchingAttributes(db, tenantId, (column, first) =>
    compilePolicyFilters(policy.filters, column, first),
  );
}

/**
 * Records the policy in the audit trail of every asset it applies to, attributed to an
 * internal actor (`{BASE_URL}/internal`, subject `access_policies/<uuid>`), as the interface asks.
 */
export async function recordPolicyAudit(
  ctx: Pick<Ctx, "baseUrl" | "db" | "writePath">,
  row: AccessPolicyRow,
  change: "created" | "updated",
): Promise<number> {
  const policy = validateAccessPolicyInput(row);
  const assets = await assetsMatching(ctx.db, row.tenant_id, policy);
  const actor = internalPrincipal(ctx.baseUrl, `access_policies/${row.id}`);
  for (let i = 0; i < assets.length; i += GROUP) {
    const group = assets.slice(i, i + GROUP).map((a) => ({
      assetId: a.id,
      tenantId: a.tenant_id,
      operation: "Record",
      behaviour: "RecordEvidence",
      eventAttributes: {
        arc_display_type: "arc_access_policy",
        arc_access_policy_identity: `access_policies/${row.id}`,
        arc_access_policy_change: change,
        arc_description: `access policy ${row.display_name} ${change}`,
      },
      assetAttributes: {},
      declared: actor,
      accepted: actor,
    }));
    // Each share of the assets in a transaction of its own, through the write path as any record.
    await ctx.writePath.writeAlone(group, noMore);
  }
  return assets.length;
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
