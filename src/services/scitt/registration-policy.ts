import type { Ctx, Principal } from "../../context.js";
import { forbidden } from "../../errors/api-error.js";
import {
  getRegistrationPolicy,
  putRegistrationPolicy,
} from "../../store/identity/scitt-registration-policies.js";

/** The tenancy's SCITT registration policy (administrators). */
export async function registrationPolicy(ctx: Pick<Ctx, "config" | "db">, p: Principal) {
  if (!p.isAdmin) throw forbidden("only administrators manage the registration policy");
  const r = await getRegistrationPolicy(ctx.db, p.tenantId);
  return {
    open: r.open || ctx.config.scittPublicLog === p.tenantId,
    requests_per_second: r.requests_per_second,
    public_log: ctx.config.scittPublicLog === p.tenantId,
  };
}

export async function setRegistrationPolicy(
  ctx: Pick<Ctx, "config" | "db">,
  p: Principal,
  input: { open: boolean; requests_per_second?: number | undefined },
) {
  if (!p.isAdmin) throw forbidden("only administrators manage the registration policy");
  const current = await getRegistrationPolicy(ctx.db, p.tenantId);
  await putRegistrationPolicy(ctx.db, {
    tenant_id: p.tenantId,
    open: input.open,
    requests_per_second: input.requests_per_second ?? current.requests_per_second,
  });
  return registrationPolicy(ctx, p);
}
