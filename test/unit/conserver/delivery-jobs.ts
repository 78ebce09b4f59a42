import type { DeliveryBackend, DeliveryJob } from "../../../plugins/conserver/delivery/job.js";
import { buildVconEvent } from "../../../plugins/conserver/template.js";
import { parseVcon } from "../../../plugins/conserver/vcon.js";

/** The fake backend's credentials. */
const FAKE_BACKEND: DeliveryBackend = {
  url: "http://fake",
  clientId: "client-1",
  clientSecret: "secret-1",
};

/** A delivery of operation `op` on a minimal vCon `uuid`. */
export function deliveryJob(uuid: string, op = "vcon_created", backend = FAKE_BACKEND): DeliveryJob {
  const doc = parseVcon(JSON.stringify({ uuid, parties: [], created_at: "2024-01-01T00:00:00Z" }));
  const event = buildVconEvent(doc, op, { link: "archivist", linkName: "t", hashMode: "raw" });
  const attrs = event.event_attributes;
  return {
    idempotencyKey: `${uuid}:${attrs.vcon_operation}:${attrs.payload}`,
    vconUuid: uuid,
    event,
    backend,
  };
}

/** Polls `check` every few ms until it holds; throws after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 3));
  }
}

/** The delivery worker's retry settings here: short waits, `inlineRetries` tries in place. */
export function quickRetries(inlineRetries: number) {
  return { baseDelayMs: 1, maxDelayMs: 5, inlineRetries, maxRateLimitWaits: 3, maxRateLimitWaitMs: 1000 };
}
