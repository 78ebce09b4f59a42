import type { Ctx } from "../../context.js";
import { notFound } from "../../errors/api-error.js";
import { type BlobRow, getBlob } from "../../store/blobstore/blobs.js";
import { getAssetEvent } from "../../store/records/asset-events.js";
import { getAsset } from "../../store/records/assets.js";
import { type AccessView, canReadEvent, projectAttributes } from "../access/access-view.js";

function references(attrs: Record<string, unknown>, blobId: string): boolean {
  const identity = `blobs/${blobId}`.toLowerCase();
  return Object.values(attrs).some((v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
    const named = (v as Record<string, unknown>).arc_blob_identity;
    // The record check accepts any case of the uuid, so the lookup must too.
    return typeof named === "string" && named.toLowerCase() === identity;
  });
}

/**
 * The blob behind an attachment: served only when the record references it by
 * arc_blob_identity in an attribute the caller may read. 404 for anything else,
 * so the routes never reveal blobs that exist but are not attached there.
 */
export async function attachmentBlob(
  ctx: Pick<Ctx, "db">,
  view: AccessView,
  ref: { assetId: string; eventId?: string | undefined; blobId: string },
): Promise<BlobRow> {
  const asset = await getAsset(ctx.db, ref.assetId);
  const grant = asset && view.grant(asset);
  if (!asset || !grant) throw notFound("attachment");
  let readable: Record<string, unknown>;
  if (ref.eventId) {
    const event = await getAssetEvent(ctx.db, ref.assetId, ref.eventId);
    if (!event || !canReadEvent(event.event_attributes, grant)) throw notFound("attachment");
    readable = { ...event.event_attributes, ...projectAttributes(event.asset_attributes, grant) };
  } else readable = projectAttributes(asset.attributes, grant);
  if (!references(readable, ref.blobId)) throw notFound("attachment");
  const blob = await getBlob(ctx.db, asset.tenant_id, ref.blobId);
  if (!blob) throw notFound("attachment");
  return blob;
}
