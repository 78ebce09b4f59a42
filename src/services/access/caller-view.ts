import type { Ctx, Principal } from "../../context.js";
import {
  type AccessPolicy,
  type Caller,
  callerMatchesPermission,
  filterableAttributes,
  fullGrant,
  grantFor,
  hasName,
  intersectNames,
  type NameSet,
  validateAccessPolicyInput,
} from "../../core/access/index.js";
import { type AccessView, adminView } from "./access-view.js";

/** The policies of one tenancy that apply to this caller, as seen from that tenancy. */
interface Scope {
  tenantId: string;
  policies: AccessPolicy[];
  caller: Caller;
  /** The caller administers this tenancy: everything in it, no policy needed. */
  all?: boolean;
}

/**
 * A tenancy's policies, checked once per array of rows the cache hands out (`Caches.checkedPolicies`).
 * A row that fails its check is not kept, so it fails every request that reads it.
 */
async function policiesOf(ctx: Pick<Ctx, "caches" | "db">, tenantId: string): Promise<AccessPolicy[]> {
  const rows = await ctx.caches.accessPolicies.get(ctx.db, tenantId);
  const checked = ctx.caches.checkedPolicies;
  let policies = checked.get(rows);
  if (policies === undefined) {
    policies = rows.map((row) => validateAccessPolicyInput(row));
    checked.set(rows, policies);
  }
  return policies;
}

/** The caller as the policy core sees it. */
function callerOf(p: Principal): Caller {
  const groups = Array.isArray(p.claims.groups) ? p.claims.groups.map(String) : [];
  return { kind: p.kind, subject: p.subject, email: p.email, claims: p.claims, groups, isAdmin: p.isAdmin };
}

/** A view across tenancies: its own (whole for administrators, else by its policies) and what sharing tenancies' OBAC policies grant. */
function policyView(scopes: Scope[]): AccessView {
  const byTenant = new Map(scopes.map((s) => [s.tenantId, s]));
  const readableIn = scopes.map((s) => ({
    tenantId: s.tenantId,
    names: s.all ? ("*" as NameSet) : filterableAttributes(s.policies, s.caller),
  }));
  const filterable = readableIn.reduce<NameSet>((names, s) => intersectNames(names, s.names), "*");
  return {
    whole: false,
    filterable,
    hiddenIn: (name) => readableIn.filter((s) => !hasName(s.names, name)).map((s) => s.tenantId),
    restriction: {
      kind: "scopes",
      scopes: scopes.map((s) => ({
        tenantId: s.tenantId,
        policies: s.all ? undefined : { policies: s.policies, caller: s.caller },
      })),
    },
    wholeIn: (tenantId) => byTenant.get(tenantId)?.all === true,
    grant: (asset) => {
      const s = byTenant.get(asset.tenant_id);
      if (s?.all) return fullGrant();
      const g = s && grantFor(s.policies, s.caller, asset.attributes);
      return g?.read ? g : undefined;
    },
  };
}

/** The caller's view of the records: administrators see their tenancy whole; others what policies grant (secured by default). */
export async function viewFor(ctx: Pick<Ctx, "caches" | "db">, p: Principal): Promise<AccessView> {
  const shares = await ctx.caches.sharing.get(ctx.db, p.tenantId);
  if (p.isAdmin && shares.length === 0) return adminView(p.tenantId);
  const caller = callerOf(p);
  const own: Scope = p.isAdmin
    ? { tenantId: p.tenantId, policies: [], caller, all: true }
    : { tenantId: p.tenantId, policies: await policiesOf(ctx, p.tenantId), caller };
  const scopes: Scope[] = [own];
  for (const share of shares) {
    scopes.push({
      tenantId: share.tenantId,
      policies: await policiesOf(ctx, share.tenantId),
      caller: { ...caller, isAdmin: false, kind: "external", externalSubjectIdentities: share.subjects },
    });
  }
  return policyView(scopes);
}

/** Whether the caller may write anything at all (uploads need it): administrators, or an own-tenancy permission that matches it. */
export async function mayWrite(ctx: Pick<Ctx, "caches" | "db">, p: Principal): Promise<boolean> {
  if (p.isAdmin) return true;
  const caller = callerOf(p);
  return (await policiesOf(ctx, p.tenantId)).some((pol) =>
    pol.access_permissions.some((perm) => callerMatchesPermission(perm, caller)),
  );
}

/** An administrator's view for writing, which needs nothing read: undefined for any other caller (`writeViewFor`). */
export function adminWriteView(p: Principal): AccessView | undefined {
  return p.isAdmin ? adminView(p.tenantId) : undefined;
}

/**
 * The view for writing: only the creating tenancy writes its records, so sharing never
 * matters here and the sharing look-up is skipped on the hot write path.
 */
export async function writeViewFor(ctx: Pick<Ctx, "caches" | "db">, p: Principal): Promise<AccessView> {
  const admin = adminWriteView(p);
  if (admin) return admin;
  return policyView([
    { tenantId: p.tenantId, policies: await policiesOf(ctx, p.tenantId), caller: callerOf(p) },
  ]);
}
