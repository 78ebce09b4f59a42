import type { Ctx } from "../context.js";
import { notFound } from "../core/api/api-error.js";
import { coseKeySet } from "../core/cose/index.js";
import { getAssetEvent } from "../store/asset-events.js";
import type { Queryable } from "../store/db.js";
import type { EntryRow } from "../store/ledger.js";
import { getSeal } from "../store/seals.js";
import { listTenancies } from "../store/tenancies.js";

/** Seal bytes of a log (latest, or of one size). */
export async function latestSeal(ctx: Ctx, tenantId: string, mmrSize?: number): Promise<Uint8Array> {
  const seal = await getSeal(ctx.db, tenantId, mmrSize);
  if (!seal) throw notFound("seal");
  return seal.seal;
}

async function assetIdOf(db: Queryable, eventId: string): Promise<string | undefined> {
  const rows = await db.query<{ asset_id: string; public: boolean }>(
    "select asset_id, public from asset_events where id = $1",
    [eventId],
  );
  return rows[0]?.public ? rows[0].asset_id : undefined;
}

/** The identity a log entry commits, shown only for public records (logs are public; private names are not). */
export async function publicRecordIdentity(ctx: Ctx, e: EntryRow): Promise<string> {
  if (e.kind !== "asset_event") return "";
  const assetId = await assetIdOf(ctx.db, e.record_id);
  if (!assetId) return "";
  const event = await getAssetEvent(ctx.db, assetId, e.record_id);
  return event ? `publicassets/${assetId}/events/${event.id}` : "";
}

/** The service's public keys as a COSE_KeySet: the sealing key (receipts, seals) and every tenancy's statement issuer key. */
/** The service's public keys: the receipt and seal key first, then every tenancy's statement issuer key. */
async function publishedKeys(ctx: Ctx) {
  const seal = await ctx.keys.get("seal", "ES256");
  const issuers = await Promise.all(
    (await listTenancies(ctx.db)).map((t) => ctx.keys.get(`issuer:${t.id}`, "ES256")),
  );
  return [seal, ...issuers];
}

export async function scittKeys(ctx: Ctx): Promise<Uint8Array> {
  return coseKeySet((await publishedKeys(ctx)).map((k) => ({ publicKey: k.publicKey, kid: k.kid })));
}

/**
 * The same keys as a JWK Set. The receipt key comes first: clients that take `keys[0]` for
 * the transparency service's key (vcon-server's `scitt` link) must get the key receipts verify with.
 */
export async function serviceJwks(ctx: Ctx): Promise<{ keys: Array<Record<string, unknown>> }> {
  return {
    keys: (await publishedKeys(ctx)).map((k) => ({
      ...(k.publicKey.export({ format: "jwk" }) as Record<string, unknown>),
      kid: k.kid,
      alg: "ES256",
      use: "sig",
    })),
  };
}

/** Sizes of every seal of a log, oldest first (a verifier replays them in order). */
export async function sealSizes(ctx: Ctx, tenantId: string): Promise<number[]> {
  const rows = await ctx.db.query<{ mmr_size: number }>(
    "select mmr_size from seals where tenant_id = $1 order by mmr_size",
    [tenantId],
  );
  return rows.map((r) => Number(r.mmr_size));
}
