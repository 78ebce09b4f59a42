import type { AssetEventBatch } from "vcon-archivist/client";
import { isRecord } from "../vcon.js";
import { checkMadeEvent, checkMadeFreeEvent } from "./answers.js";
import type { AssetResolver } from "./assets.js";
import { BackendBatches, type BatchSpec } from "./backend-batches.js";
import type { ArchivistClient } from "./client.js";
import { backendKey, type DeliveryJob } from "./job.js";
import { BackendLookups, groupPageSize, type LookupSpec } from "./lookups.js";

export type DeliveryOutcome = "delivered" | "duplicate";

const SEARCH_PAGE = 50;
const SEARCH_PAGES = 20;

/** OData string literal: quotes doubled. */
function odata(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** An event of a vCon operation on the vCon's asset, as the delivery looks for it before posting. */
interface EventQuery {
  asset: string;
  payload: string;
  operation: string;
}

/** Finding an operation's event on a vCon's asset: alone, or many in one list over all assets. */
const EVENT_LOOKUP: LookupSpec<EventQuery, true> = {
  key: (q) => `${q.asset}|${q.operation}|${q.payload}`,
  async one(client, q) {
    const found = await client.listAssetEvents(q.asset, {
      "event_attributes.payload": q.payload,
      "event_attributes.vcon_operation": q.operation,
      page_size: "1",
    });
    return found.items.length > 0 ? true : undefined;
  },
  async many(client, qs) {
    const pageSize = groupPageSize(qs.length);
    // By payload alone (the operation matches most events: an index would walk them all once
    // per payload); asset and operation are checked on each answer.
    const answer = await client.listAssetEvents("-", {
      "event_attributes.payload": [...new Set(qs.map((q) => q.payload))],
      page_size: String(pageSize),
    });
    const events: unknown[] = answer.items;
    const wanted = new Set(qs.map((q) => EVENT_LOOKUP.key(q)));
    const found = new Map<string, true>();
    for (const e of events) {
      const attrs = isRecord(e) && isRecord(e.event_attributes) ? e.event_attributes : undefined;
      const asset = isRecord(e) ? e.asset_identity : undefined;
      if (!attrs || typeof asset !== "string") continue;
      const key = EVENT_LOOKUP.key({
        asset,
        payload: String(attrs.payload),
        operation: String(attrs.vcon_operation),
      });
      if (wanted.has(key)) found.set(key, true);
    }
    return { found, complete: events.length < pageSize };
  },
};

/** The event look-ups of a delivery worker, one set per backend. */
export function eventLookups(): BackendLookups<EventQuery, true> {
  return new BackendLookups(EVENT_LOOKUP);
}

/** An event to record on a vCon's asset, named by its identity. */
type EventPost = AssetEventBatch["requests"][number];

/**
 * Recording an event on a known asset: alone (`POST …/assets/{uuid}/events`), or, when concurrent
 * deliveries record several at once (later operations on many vCons), in one
 * `assets/-/events:batch` request, which answers only the events' identities
 * (`Prefer: return=minimal`): a delivery reads nothing of the answer but that it succeeded.
 */
const EVENT_POSTS: BatchSpec<EventPost, unknown> = {
  name: "assets/-/events:batch",
  one: (client, post) => client.createAssetEvent(post.asset_identity, post.event),
  many: (client, requests) => client.createAssetEvents({ requests }, { minimal: true }),
};

/** The event posts of a delivery worker, batched per backend. */
export function eventPosts(): BackendBatches<EventPost, unknown> {
  return new BackendBatches(EVENT_POSTS);
}

async function freeEventExists(client: ArchivistClient, trail: string, attrs: Record<string, string>) {
  const filter = `trails/any(t: t eq ${odata(trail)}) and event_type eq ${odata(attrs.vcon_operation as string)}`;
  for (let page = 0; page < SEARCH_PAGES; page++) {
    const found = await client.searchEvents({ filter, top: SEARCH_PAGE, skip: page * SEARCH_PAGE });
    const events: unknown[] = found.events;
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
  events: BackendLookups<EventQuery, true>,
  posts: BackendBatches<EventPost, unknown>,
  job: DeliveryJob,
  signal?: AbortSignal,
): Promise<DeliveryOutcome> {
  const attrs = job.event.event_attributes;
  const resolved = await assets.resolveAsset(
    client,
    backendKey(job.backend),
    job.vconUuid,
    signal,
    { key: job.idempotencyKey, event: job.event },
    job.publicAsset === true,
  );
  const { identity: asset, created } = resolved;
  const lookups = events.of(client.credentials);
  const q = { asset, payload: attrs.payload as string, operation: attrs.vcon_operation as string };
  // Recorded with the asset itself (`assets:withEvents`), when this job created it.
  let recorded = resolved.carried === job.idempotencyKey;
  // An asset created just now holds no event of this job: the look-up would only cost a request.
  if (!recorded && (created || (await lookups.find(client, q)) === undefined)) {
    // Not resent after an unknown outcome (the client sends writes once, a batch too): the job's
    // next attempt looks it up first.
    const made = await posts.send(client, { asset_identity: asset, event: job.event });
    checkMadeEvent(made, asset, "event post");
    recorded = true;
  }
  lookups.exists(client, q);
  if (job.alsoAssetFree) {
    const trail = `vcon://${job.vconUuid}`;
    if (!(await freeEventExists(client, trail, attrs))) {
      const made = await client.createEvent({
        attributes: attrs,
        trails: [trail],
        event_type: attrs.vcon_operation,
      });
      checkMadeFreeEvent(made, "asset-free event post");
      recorded = true;
    }
  }
  return recorded ? "delivered" : "duplicate";
}
