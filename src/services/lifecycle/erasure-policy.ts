import type { Ctx, Principal } from "../../context.js";
import { forbidden } from "../../errors/api-error.js";
import { putErasurePolicy } from "../../store/records/erasable-values.js";
import { checkErasableNames } from "../records/erasable.js";

/** Sets the tenancy's erasable attribute names (administrators); the cache forgets at once. */
export async function setErasurePolicy(
  ctx: Pick<Ctx, "db" | "caches">,
  p: Principal,
  attributes: string[],
): Promise<{ attributes: string[] }> {
  if (!p.isAdmin) throw forbidden("only administrators set the erasure policy");
  const names = checkErasableNames(attributes, "attributes").sort();
  await putErasurePolicy(ctx.db, p.tenantId, names);
  ctx.caches.erasurePolicies.forget();
  return { attributes: names };
}
