import type { Ctx, Principal } from "../context.js";
import type { AccessGrant } from "../core/access/index.js";
import { notFound } from "../core/api/api-error.js";
import { getAssetEvent } from "../store/asset-events.js";
import { getAsset } from "../store/assets.js";
import { canReadEvent } from "./access-view.js";
import { publicView } from "./assets.js";
import { viewFor } from "./views.js";

/** 404 unless the asset event is public or the caller may read it; the grant it is read under. */
export async function requireReadableEvent(
  ctx: Ctx,
  caller: Principal | undefined,
  assetId: string,
  eventId: string,
): Promise<AccessGrant> {
  const asset = await getAsset(ctx.db, assetId);
  const event = asset ? await getAssetEvent(ctx.db, assetId, eventId) : undefined;
  if (!asset || !event) throw notFound("event");
  const view = caller ? await viewFor(ctx, caller) : publicView;
  const grant = view.grant(asset) ?? publicView.grant(asset);
  if (!grant || !canReadEvent(event.event_attributes, grant)) throw notFound("event");
  return grant;
}
