import { ConserverError } from "../errors.js";
import { backendFromOptions } from "./backend-options.js";
import { mergeOptions } from "./options.js";
import { queueDelivery } from "./queue-delivery.js";
import { linkEvent, TEMPLATE_OPTION_DEFAULTS } from "./template-options.js";
import type { LinkModule } from "./types.js";

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
export const run: LinkModule["run"] = async (vconUuid, linkName, options, ctx) => {
  if (!ctx?.deliveryQueue)
    throw new ConserverError("LINK_CONTEXT", `${linkName}: the archivist link needs a delivery queue`);
  const o = mergeOptions(defaultOptions, options);
  const backend = backendFromOptions(o, linkName);
  const { event } = await linkEvent(vconUuid, "archivist", linkName, o, ctx);
  await queueDelivery(ctx.deliveryQueue, { event, backend, o, linkName, offersPublicAssets: true });
  const attrs = event.event_attributes;
  ctx.log.info(
    { link: linkName, vconUuid, operation: attrs.vcon_operation, payload: attrs.payload },
    "delivery queued",
  );
  return vconUuid;
};
