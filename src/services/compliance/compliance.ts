import { randomUUID } from "node:crypto";
import type { Ctx, Principal } from "../../context.js";
import {
  COMPLIANCE_TYPES,
  evaluateCompliance,
  validateCompliancePolicyInput,
} from "../../core/compliance/index.js";
import { matchPolicyFilters, parsePolicyFilters } from "../../core/filters/index.js";
import { notFound } from "../../errors/api-error.js";
import { isoTime } from "../../formats/ids.js";
import {
  allCompliancePolicies,
  type CompliancePolicyRow,
  compliancePolicyRows,
  countCompliancePolicies,
  deleteCompliancePolicy,
  getCompliancePolicy,
  insertCompliancePolicy,
} from "../../store/identity/compliance-policies.js";
import { eventsOfAsset } from "../../store/records/asset-events.js";
import { getAsset } from "../../store/records/assets.js";
import { type AccessView, canReadEvent, projectAttributes } from "../access/access-view.js";
import { adminCollection } from "../admin-collection.js";
import { enumList } from "../records/list-query.js";

/** API shape of a compliance policy. */
export function compliancePolicyOut(r: CompliancePolicyRow) {
  return { identity: `compliance_policies/${r.id}`, ...r.body };
}

// Compliance policies are tenancy configuration, secured by default: administrators manage
// and read them. Others learn, through the compliance of an asset they may read, which
// policies apply to it and whether it passes (docs/api.md).
const policies = adminCollection({
  forbidden: "only administrators manage and read compliance policies",
  item: "compliance policy",
  out: compliancePolicyOut,
  get: getCompliancePolicy,
  list: (db, tenantId, pairs) =>
    compliancePolicyRows(db, tenantId, { types: enumList(pairs, "compliance_type", COMPLIANCE_TYPES) }),
  quota: { key: "compliance_policies", label: "compliance policies", count: countCompliancePolicies },
});

/** Creates a policy after checking the fields its type requires; quota `compliance_policies`. */
export async function createCompliancePolicy(ctx: Pick<Ctx, "db">, p: Principal, body: unknown) {
  policies.requireAdmin(p);
  const input = validateCompliancePolicyInput(body);
  parsePolicyFilters(input.asset_filter);
  const row = await policies.insertUnderQuota(ctx.db, p.tenantId, (tx) =>
    insertCompliancePolicy(tx, randomUUID(), p.tenantId, input),
  );
  return compliancePolicyOut(row);
}

export const readCompliancePolicy = policies.read;

/** Deletes a policy, answering what it held. */
export async function removeCompliancePolicy(ctx: Pick<Ctx, "db">, p: Principal, id: string) {
  policies.requireAdmin(p);
  return compliancePolicyOut(policies.found(await deleteCompliancePolicy(ctx.db, p.tenantId, id)));
}

/** Compliance of one asset now or at `at`: every policy of its tenancy whose asset_filter matches it then. */
export async function assetCompliance(ctx: Pick<Ctx, "db">, view: AccessView, assetId: string, at?: Date) {
  const asset = await getAsset(ctx.db, assetId);
  const grant = asset && view.grant(asset);
  if (!asset || !grant) throw notFound("asset");
  const when = at ?? new Date();
  // The time of an event is its timestamp_declared, for the asset's attributes as for the
  // events themselves: the asset as first recorded, changed by the events declared by then.
  const all = await eventsOfAsset(ctx.db, asset.id);
  const declared = all.filter((e) => e.timestamp_declared.getTime() <= when.getTime());
  // Only the attributes the caller may read: a policy selected by, or asserting on, a hidden
  // attribute would otherwise tell its value (a richness reason quotes it).
  const then = {
    attributes: projectAttributes(
      declared.reduce<Record<string, unknown>>((attrs, e) => Object.assign(attrs, e.asset_attributes), {
        ...(all[0]?.asset_attributes ?? asset.attributes),
      }),
      grant,
    ),
  };
  const events = declared
    .filter((e) => canReadEvent(e.event_attributes, grant))
    .map((e) => ({
      timestamp_declared: isoTime(e.timestamp_declared),
      event_attributes: e.event_attributes,
    }));
  const policies = (await allCompliancePolicies(ctx.db, asset.tenant_id)).filter((pol) =>
    matchPolicyFilters(parsePolicyFilters(pol.body.asset_filter), then.attributes),
  );
  const compliance = policies.map((pol) => {
    const r = evaluateCompliance(pol.body, { events, assetAttributes: then.attributes, at: when });
    return {
      compliance_policy_identity: `compliance_policies/${pol.id}`,
      compliant: r.compliant,
      reason: r.reason,
    };
  });
  return {
    compliant: compliance.every((c) => c.compliant),
    compliant_at: isoTime(when),
    compliance,
    next_page_token: "",
  };
}

/** The tenancy's compliance policies, optionally of some types. */
export const compliancePolicySource = policies.source;
