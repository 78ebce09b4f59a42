import { type DeliveryJob, idempotencyKey } from "../delivery/job.js";
import { ConserverError } from "../errors.js";
import { backendFromOptions } from "./backend-options.js";
import { mergeOptions, optBool } from "./options.js";
import { linkEvent, TEMPLATE_OPTION_DEFAULTS } from "./template-options.js";
import type { LinkContext, LinkOptions } from "./types.js";

/** Options of the `archivist` link (YAML names); `vcon_operation` and a backend must be given. */
export const defaultOptions: Record<string, unknown> = {
  vcon_operation: undefined,
  backend: undefined,
  asset_free: false,
  public_assets: false,
  partner_id: undefined,
  ...TEMPLATE_OPTION_DEFAULTS,
};

/** Reads the vCon, builds its template-0.3.0 event and queues its delivery; returns the uuid at once. */
export async function run(
  vconUuid: string,
  linkName: string,
  options: LinkOptions,
  ctx: LinkContext,
): Promise<string | null> {
  if (!ctx?.deliveryQueue)
    throw new ConserverError("LINK_CONTEXT", `${linkName}: the archivist link needs a delivery queue`);
  const o = mergeOptions(defaultOptions, options);
  const backend = backendFromOptions(o, linkName);
  const { event } = await linkEvent(vconUuid, "archivist", linkName, o, ctx);
  const attrs = event.event_attributes;
  // The vCon's own uuid (the subject), which normally equals the key it was stored under.
  const uuid = (attrs.subject as string).slice("vcon://".length);
  const key = idempotencyKey(uuid, attrs.vcon_operation as string, attrs.payload as string);
  const job: DeliveryJob = { idempotencyKey: key, vconUuid: uuid, event, backend };
  if (optBool(o, "asset_free", linkName, false)) job.alsoAssetFree = true;
  // A choice, never the default: a public vCon's hashes, times and operations are anyone's to read.
  if (optBool(o, "public_assets", linkName, false)) job.publicAsset = true;
  await ctx.deliveryQueue.add("deliver", job, { jobId: key });
  ctx.log.info(
    { link: linkName, vconUuid, operation: attrs.vcon_operation, payload: attrs.payload },
    "delivery queued",
  );
  return vconUuid;
}
