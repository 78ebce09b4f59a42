import type { Ctx } from "../../context.js";
import { notFound } from "../../errors/api-error.js";
import { coseKeyBytes, coseKeySet } from "../../formats/cose/keys.js";
import { es256PublicKey } from "../../keys/keyring.js";
import { listTenancies } from "../../store/identity/tenancies.js";
import { getSeal, listSealSizes } from "../../store/ledger/seals.js";

/** Seal bytes of a log (latest, or of one size). */
export async function latestSeal(
  ctx: Pick<Ctx, "db">,
  tenantId: string,
  mmrSize?: number,
): Promise<Uint8Array> {
  const seal = await getSeal(ctx.db, tenantId, mmrSize);
  if (!seal) throw notFound("seal");
  return seal.seal;
}

/**
 * The service's public keys: the current receipt and seal key first, then every tenancy's current
 * statement issuer key, then every retired one of these (kept published for ever, so whatever they
 * signed still verifies: docs/keys.md).
 */
async function publishedKeys(ctx: Pick<Ctx, "db" | "keys">) {
  const histories = await Promise.all([
    ctx.keys.history("seal", "ES256"),
    ...(await listTenancies(ctx.db)).map((t) => ctx.keys.history(`issuer:${t.id}`, "ES256")),
  ]);
  const entries = [...histories.flatMap((h) => h.slice(0, 1)), ...histories.flatMap((h) => h.slice(1))];
  return entries.map((e) => ({ kid: e.kid, verifier: es256PublicKey(e), jwk: e.public_jwk }));
}

export async function scittKeys(ctx: Pick<Ctx, "db" | "keys">): Promise<Uint8Array> {
  return coseKeySet((await publishedKeys(ctx)).map((k) => ({ jwk: k.verifier.jwk, kid: k.kid })));
}

/** One published key by its kid, as a COSE_Key (404 for a kid the service does not publish). */
export async function scittKey(ctx: Pick<Ctx, "db" | "keys">, kid: string): Promise<Uint8Array> {
  const key = (await publishedKeys(ctx)).find((k) => k.kid === kid);
  if (!key) throw notFound("key");
  return coseKeyBytes(key.verifier.jwk, key.kid);
}

/**
 * The same keys as a JWK Set. The receipt key comes first: clients that take `keys[0]` for
 * the transparency service's key (vcon-server's `scitt` link) must get the key receipts verify with.
 */
export async function serviceJwks(
  ctx: Pick<Ctx, "db" | "keys">,
): Promise<{ keys: Array<Record<string, unknown>> }> {
  return {
    keys: (await publishedKeys(ctx)).map((k) => ({
      ...k.jwk,
      kid: k.kid,
      alg: "ES256",
      use: "sig",
    })),
  };
}

/** Sizes of every seal of a log, oldest first (a verifier replays them in order). */
export function sealSizes(ctx: Pick<Ctx, "db">, tenantId: string): Promise<number[]> {
  return listSealSizes(ctx.db, tenantId);
}
