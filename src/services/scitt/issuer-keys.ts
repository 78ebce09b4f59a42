import { createPublicKey, type KeyObject } from "node:crypto";
import type { Ctx, Principal } from "../../context.js";
import { nodePublicKeyFromJwk } from "../../core/node/crypto.js";
import { badRequest, forbidden, notFound } from "../../errors/api-error.js";
import { ecJwk, type PublicKey } from "../../formats/crypto/public-key.js";
import { deleteScittKey, insertScittKey, listScittKeys } from "../../store/scitt-keys.js";

// The statement issuer keys a tenancy trusts: its own, and those its administrators register.

/** The statement issuer of a tenancy: `{BASE_URL}/tenant/<uuid>`, signing with its ES256 issuer key. */
export async function tenancyIssuer(ctx: Pick<Ctx, "baseUrl" | "keys">, tenantId: string) {
  const key = await ctx.keys.get(`issuer:${tenantId}`, "ES256");
  return { issuer: `${ctx.baseUrl}/tenant/${tenantId}`, key };
}

/** Issuer keys the tenancy trusts: its own, and the ones an administrator registered. */
export async function trustedKeys(
  ctx: Pick<Ctx, "baseUrl" | "db" | "keys">,
  tenantId: string,
): Promise<Map<string, PublicKey>> {
  const own = (await tenancyIssuer(ctx, tenantId)).key;
  const keys = new Map<string, PublicKey>([[own.kid, own.verifier]]);
  // Only P-256 keys are registered (`addScittKey`).
  for (const k of await listScittKeys(ctx.db, tenantId))
    keys.set(k.kid, nodePublicKeyFromJwk(ecJwk(k.public_jwk)));
  return keys;
}

/** Registers (or replaces) a trusted statement issuer key (P-256 JWK); administrators only. */
export async function addScittKey(
  ctx: Pick<Ctx, "db">,
  p: Principal,
  input: { kid: string; display_name?: string | undefined; public_jwk: Record<string, unknown> },
) {
  if (!p.isAdmin) throw forbidden("only administrators manage trusted issuer keys");
  let key: KeyObject;
  try {
    key = createPublicKey({ key: input.public_jwk as never, format: "jwk" });
  } catch {
    throw badRequest("public_jwk is not a valid public JWK");
  }
  const jwk = key.export({ format: "jwk" }) as Record<string, unknown>;
  if (jwk.crv !== "P-256") throw badRequest("public_jwk must be an EC P-256 key (ES256)");
  await insertScittKey(ctx.db, {
    tenant_id: p.tenantId,
    kid: input.kid,
    display_name: input.display_name ?? "",
    public_jwk: jwk,
  });
  return { kid: input.kid, display_name: input.display_name ?? "", public_jwk: jwk };
}

export async function scittKeyList(ctx: Pick<Ctx, "baseUrl" | "db" | "keys">, p: Principal) {
  if (!p.isAdmin) throw forbidden("only administrators manage trusted issuer keys");
  const own = await tenancyIssuer(ctx, p.tenantId);
  const registered = await listScittKeys(ctx.db, p.tenantId);
  return {
    issuer: own.issuer,
    keys: [
      { kid: own.key.kid, display_name: "tenancy issuer key", public_jwk: own.key.publicJwk },
      ...registered.map((k) => ({ kid: k.kid, display_name: k.display_name, public_jwk: k.public_jwk })),
    ],
  };
}

export async function removeScittKey(ctx: Pick<Ctx, "db">, p: Principal, kid: string): Promise<void> {
  if (!p.isAdmin) throw forbidden("only administrators manage trusted issuer keys");
  if (!(await deleteScittKey(ctx.db, p.tenantId, kid))) throw notFound("issuer key");
}
