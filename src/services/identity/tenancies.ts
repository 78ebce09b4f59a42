import type { Ctx, Principal } from "../../context.js";
import { forbidden, notFound } from "../../errors/api-error.js";
import { listRootPrincipals, replaceRootPrincipals } from "../../store/identity/root-principals.js";
import { getTenancy, upsertTenancy } from "../../store/identity/tenancies.js";

/** Public facts of any tenancy (so a partner can resolve a `tenant/<uuid>` it sees on a shared record). */
export async function publicInfo(ctx: Pick<Ctx, "db">, id: string) {
  const t = await getTenancy(ctx.db, id);
  if (!t) throw notFound("tenancy");
  return { identity: `tenant/${t.id}`, verified_domain: "" };
}

/** The caller's own tenancy. */
export async function selfInfo(ctx: Pick<Ctx, "db">, p: Principal) {
  const t = await getTenancy(ctx.db, p.tenantId);
  if (!t) throw notFound("tenancy");
  return {
    identity: `tenant/${t.id}`,
    display_name: t.display_name,
    verified_domain: "",
    enterprise_sso_enabled: false,
  };
}

export async function renameTenancy(ctx: Pick<Ctx, "db">, p: Principal, displayName: string) {
  if (!p.isAdmin) throw forbidden("only administrators can change the tenancy");
  const t = await getTenancy(ctx.db, p.tenantId);
  if (!t) throw notFound("tenancy");
  await upsertTenancy(ctx.db, { ...t, display_name: displayName });
  return selfInfo(ctx, p);
}

/** The tenancy administrators (root principals). */
export async function rootPrincipals(ctx: Pick<Ctx, "db">, p: Principal) {
  if (!p.isAdmin) throw forbidden("only administrators can read the administrators");
  const rows = await listRootPrincipals(ctx.db, p.tenantId);
  return {
    root_principals: rows.map((r) => ({
      issuer: r.issuer,
      subject: r.subject,
      display_name: r.display_name,
      email: "",
    })),
  };
}

/** Replaces the administrators; an app registration becomes one with issuer `{BASE_URL}/appidpv1` and its client id. */
export async function setRootPrincipals(
  ctx: Pick<Ctx, "db">,
  p: Principal,
  principals: Array<{ issuer?: string | undefined; subject: string; display_name?: string | undefined }>,
) {
  if (!p.isAdmin) throw forbidden("only administrators can change the administrators");
  await replaceRootPrincipals(
    ctx.db,
    p.tenantId,
    principals.map((x) => ({
      issuer: x.issuer ?? "",
      subject: x.subject,
      display_name: x.display_name ?? "",
    })),
  );
  return rootPrincipals(ctx, p);
}
