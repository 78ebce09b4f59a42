import { isRecord } from "../vcon/unsigned-check.js";
import type { AssetResolver } from "./assets.js";
import type { ArchivistClient } from "./client.js";
import type { DeliveryJob } from "./job.js";

export type DeliveryOutcome = "delivered" | "duplicate";

const SEARCH_PAGE = 50;
const SEARCH_PAGES = 20;

function list(v: unknown, field: string): unknown[] {
  return isRecord(v) && Array.isArray(v[field]) ? (v[field] as unknown[]) : [];
}

/** OData string literal: quotes doubled. */
function odata(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

async function assetEventExists(client: ArchivistClient, asset: string, attrs: Record<string, string>) {
  const found = await client.call("GET", `/archivist/v2/${asset}/events`, {
    route: "events.list",
    query: {
      "event_attributes.payload": attrs.payload as string,
      "event_attributes.vcon_operation": attrs.vcon_operation as string,
      page_size: "1",
    },
  });
  return list(found, "events").length > 0;
}

async function freeEventExists(client: ArchivistClient, trail: string, attrs: Record<string, string>) {
  const filter = `trails/any(t: t eq ${odata(trail)}) and event_type eq ${odata(attrs.vcon_operation as string)}`;
  for (let page = 0; page < SEARCH_PAGES; page++) {
    const found = await client.call("POST", "/archivist/v1/events/search", {
      route: "free_events.search",
      body: { filter, top: SEARCH_PAGE, skip: page * SEARCH_PAGE },
    });
    const events = list(found, "events");
    if (events.some((e) => isRecord(e) && isRecord(e.attributes) && e.attributes.payload === attrs.payload))
      return true;
    if (events.length < SEARCH_PAGE) return false;
  }
  return false;
}

/**
 * Records one job's event: on the vCon's asset, and (when asked) as an asset-free event on its
 * trail. Each record is looked up first (unless its asset was created by this very delivery), so
 * re-running a job after a crash records nothing twice.
 */
export async function deliver(
  client: ArchivistClient,
  assets: AssetResolver,
  job: DeliveryJob,
  signal?: AbortSignal,
): Promise<DeliveryOutcome> {
  const attrs = job.event.event_attributes;
  const { identity: asset, created } = await assets.resolveAsset(
    client,
    `${job.backend.url}|${job.backend.clientId}`,
    job.vconUuid,
    signal,
  );
  let recorded = false;
  // An asset created just now holds no event of this job: the look-up would only cost a request.
  if (created || !(await assetEventExists(client, asset, attrs))) {
    await client.call("POST", `/archivist/v2/${asset}/events`, { route: "events.create", body: job.event });
    recorded = true;
  }
  if (job.alsoAssetFree) {
    const trail = `vcon://${job.vconUuid}`;
    if (!(await freeEventExists(client, trail, attrs))) {
      await client.call("POST", "/archivist/v1/events", {
        route: "free_events.create",
        body: { attributes: attrs, trails: [trail], event_type: attrs.vcon_operation },
      });
      recorded = true;
    }
  }
  return recorded ? "delivered" : "duplicate";
}
