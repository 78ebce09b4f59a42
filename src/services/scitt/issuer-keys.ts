import { createPublicKey, type KeyObject } from "node:crypto";
import type { Ctx, Principal } from "../../context.js";
import { nodeSignatureKeyFromJwk } from "../../core/node/crypto.js";
import { badRequest, forbidden, notFound } from "../../errors/api-error.js";
import { algorithmOfKey } from "../../formats/cose/sign1.js";
import { type SignatureKey, signatureJwk } from "../../formats/crypto/public-key.js";
import { deleteScittKey, insertScittKey, listScittKeys } from "../../store/identity/scitt-keys.js";

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
): Promise<Map<string, SignatureKey>> {
  const own = (await tenancyIssuer(ctx, tenantId)).key;
  const keys = new Map<string, SignatureKey>([[own.kid, own.verifier]]);
  // Each registered key was checked to be one of these kinds (`addScittKey`).
  for (const k of await listScittKeys(ctx.db, tenantId))
    keys.set(k.kid, nodeSignatureKeyFromJwk(k.public_jwk));
  return keys;
}

/**
 * The issuer keys a tenancy may register: the algorithms the verifier checks (src/formats/cose/sign1.ts),
 * each on its own curve. The SCITT community's emulator, like CCF-based services, makes its issuers'
 * keys on P-384.
 */
const ACCEPTED = "an EC key on P-256, P-384 or P-521 (ES256, ES384, ES512) or an OKP key on Ed25519 (EdDSA)";

/**
 * Registers (or replaces) a trusted statement issuer key (a public JWK of `ACCEPTED`); administrators
 * only. The key signs under its curve's algorithm alone: a statement that names another is refused.
 */
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
  let jwk: Record<string, unknown>;
  try {
    jwk = { ...signatureJwk(key.export({ format: "jwk" })) };
  } catch {
    throw badRequest(`public_jwk must be ${ACCEPTED}`);
  }
  await insertScittKey(ctx.db, {
    tenant_id: p.tenantId,
    kid: input.kid,
    display_name: input.display_name ?? "",
    public_jwk: jwk,
  });
  const alg = algorithmOfKey(nodeSignatureKeyFromJwk(jwk));
  return { kid: input.kid, display_name: input.display_name ?? "", public_jwk: jwk, alg };
}

export async function scittKeyList(ctx: Pick<Ctx, "baseUrl" | "db" | "keys">, p: Principal) {
  if (!p.isAdmin) throw forbidden("only administrators manage trusted issuer keys");
  const own = await tenancyIssuer(ctx, p.tenantId);
  const registered = await listScittKeys(ctx.db, p.tenantId);
  return {
    issuer: own.issuer,
    keys: [
      { kid: own.key.kid, display_name: "tenancy issuer key", public_jwk: own.key.publicJwk, alg: "ES256" },
      ...registered.map((k) => ({
        kid: k.kid,
        display_name: k.display_name,
        public_jwk: k.public_jwk,
        alg: algorithmOfKey(nodeSignatureKeyFromJwk(k.public_jwk)),
      })),
    ],
  };
}

export async function removeScittKey(ctx: Pick<Ctx, "db">, p: Principal, kid: string): Promise<void> {
  if (!p.isAdmin) throw forbidden("only administrators manage trusted issuer keys");
  if (!(await deleteScittKey(ctx.db, p.tenantId, kid))) throw notFound("issuer key");
}
