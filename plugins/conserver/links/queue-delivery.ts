import type { DeliveryBackend, DeliveryJob } from "../delivery/job.js";
import { idempotencyKey } from "../delivery/job.js";
import type { JobQueue } from "../queue/types.js";
import type { VconEventBody } from "../template.js";
import { optBool } from "./options.js";

/** The vCon's own uuid, from the event's subject: normally the key it was stored under. */
export function subjectUuid(event: VconEventBody): string {
  return (event.event_attributes.subject as string).slice("vcon://".length);
}

/** One template event a link hands to the delivery queue, and the link's options that shape its job. */
export interface Delivery {
  event: VconEventBody;
  backend: DeliveryBackend;
  o: Record<string, unknown>;
  linkName: string;
  /** Whether the link offers the `public_assets` option (the archivist link alone). */
  offersPublicAssets?: boolean;
}

/**
 * Queues the event's delivery under its idempotency key (the vCon, the operation and the
 * payload), so that a link that runs again on the same vCon version queues the same job, which
 * the queue and the backend each take once.
 */
export async function queueDelivery(queue: JobQueue<DeliveryJob>, d: Delivery): Promise<void> {
  const attrs = d.event.event_attributes;
  const vconUuid = subjectUuid(d.event);
  const key = idempotencyKey(vconUuid, attrs.vcon_operation as string, attrs.payload as string);
  const job: DeliveryJob = { idempotencyKey: key, vconUuid, event: d.event, backend: d.backend };
  if (optBool(d.o, "asset_free", d.linkName, false)) job.alsoAssetFree = true;
  // A choice, never the default: a public vCon's hashes, times and operations are anyone's to read.
  if (d.offersPublicAssets && optBool(d.o, "public_assets", d.linkName, false)) job.publicAsset = true;
  await queue.add("deliver", job, { jobId: key });
}
