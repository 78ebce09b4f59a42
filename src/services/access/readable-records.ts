import type { Ctx, Principal } from "../../context.js";
import { type AccessGrant, fullGrant } from "../../core/access/index.js";
import { type ApiError, notFound, unauthenticated } from "../../errors/api-error.js";
import { getRegistrationPolicy } from "../../store/identity/scitt-registration-policies.js";
import { getTenancy } from "../../store/identity/tenancies.js";
import {
  type AssetEventRow,
  type EventAccessFacts,
  eventAccessFacts,
  eventAccessFactsOf,
  getAssetEvent,
} from "../../store/records/asset-events.js";
import { type AssetRow, getAsset } from "../../store/records/assets.js";
import { freeEventOwner } from "../../store/records/free-events.js";
import { readThrough } from "../read-through.js";
import { publicView } from "../records/assets.js";
import { canReadEvent } from "./access-view.js";
import { viewFor } from "./caller-view.js";

/**
 * The refusal of a record the caller may not read: without a token, 401 (a token might
 * grant it, and a 404 would tell an anonymous caller which private records exist); with
 * one, 404, as for a record that does not exist.
 */
const refusal = (caller: Principal | undefined, what: string): ApiError =>
  caller ? notFound(what) : unauthenticated("this record is not public: a token is required");

/** An asset event the caller may read, with its asset and the grant it is read under. */
interface Readable {
  grant: AccessGrant;
  asset: AssetRow;
  event: AssetEventRow;
}

/** The asset event, its asset and the grant under which the caller (or anyone, without one) may read it; undefined if none. */
async function readGrant(
  ctx: Pick<Ctx, "caches" | "db">,
  caller: Principal | undefined,
  assetId: string,
  eventId: string,
): Promise<Readable | undefined> {
  const asset = await getAsset(ctx.db, assetId);
  const event = asset ? await getAssetEvent(ctx.db, assetId, eventId) : undefined;
  if (!asset || !event) return undefined;
  const view = caller ? await viewFor(ctx, caller) : publicView;
  const grant = view.grant(asset) ?? publicView.grant(asset);
  return grant && canReadEvent(event.event_attributes, grant) ? { grant, asset, event } : undefined;
}

/** 401 without a token, 404 with one, unless the asset event is public or the caller may read it; the event and the grant it is read under. */
export async function requireReadableEvent(
  ctx: Pick<Ctx, "caches" | "db">,
  caller: Principal | undefined,
  assetId: string,
  eventId: string,
): Promise<{ grant: AccessGrant; event: AssetEventRow }> {
  const readable = await readGrant(ctx, caller, assetId, eventId);
  if (!readable) throw refusal(caller, "event");
  return readable;
}

// Past this many kept event facts the cache starts over (~0.5 kB each).
const FACTS_KEPT = 100_000;

/** The access facts of an asset event (immutable once stored, so kept), or undefined if none. */
async function factsOf(
  ctx: Pick<Ctx, "caches" | "db">,
  eventId: string,
): Promise<EventAccessFacts | undefined> {
  return readThrough(ctx.caches.eventFacts, eventId, FACTS_KEPT, () => eventAccessFacts(ctx.db, eventId));
}

/**
 * Reads the access facts of many events at once into what `factsOf` keeps (a batch of receipts
 * was a probe per record): the checks that follow are the same, only their reads are fewer.
 */
export async function prefetchEventFacts(ctx: Pick<Ctx, "caches" | "db">, eventIds: string[]): Promise<void> {
  const kept = ctx.caches.eventFacts;
  const missing = [...new Set(eventIds)].filter((id) => !kept.has(id));
  if (missing.length === 0) return;
  const read = await eventAccessFactsOf(ctx.db, missing);
  if (kept.size + read.size > FACTS_KEPT) kept.clear();
  for (const [id, facts] of read) kept.set(id, facts);
}

/**
 * Whether the caller may read the event, as `readGrant` decides it: a caller whose view grants
 * the event's tenancy whole needs nothing more than the event's immutable facts; any other grant
 * depends on the asset's current attributes, read now (never from a cache).
 */
async function mayReadFacts(
  ctx: Pick<Ctx, "caches" | "db">,
  caller: Principal | undefined,
  facts: EventAccessFacts,
): Promise<boolean> {
  const view = caller ? await viewFor(ctx, caller) : publicView;
  if (view.wholeIn(facts.tenant_id)) return canReadEvent(facts.event_attributes, fullGrant());
  const asset = await getAsset(ctx.db, facts.asset_id);
  if (!asset) return false;
  const grant = view.grant(asset) ?? publicView.grant(asset);
  return grant !== undefined && canReadEvent(facts.event_attributes, grant);
}

/** 401 without a token, 404 with one, unless the event is of that asset and the caller may read it (receipts). */
export async function requireReadableEventOf(
  ctx: Pick<Ctx, "caches" | "db">,
  caller: Principal | undefined,
  assetId: string,
  eventId: string,
): Promise<void> {
  const facts = await factsOf(ctx, eventId);
  if (!facts || facts.asset_id !== assetId || !(await mayReadFacts(ctx, caller, facts)))
    throw refusal(caller, "event");
}

/** How a record known only by its id may be named to this caller; `undefined` when it may not read it. */
export async function readableRecordName(
  ctx: Pick<Ctx, "caches" | "config" | "db">,
  caller: Principal | undefined,
  recordId: string,
): Promise<string | undefined> {
  const facts = await factsOf(ctx, recordId);
  if (facts) {
    if (!(await mayReadFacts(ctx, caller, facts))) return undefined;
    return `${facts.public ? "publicassets" : "assets"}/${facts.asset_id}/events/${recordId}`;
  }
  const free = await freeEventOwner(ctx.db, recordId);
  return free && freeEventReadable(ctx, caller, free) ? `events/${recordId}` : undefined;
}

/**
 * Asset-free events are read by their tenancy's administrators. A registered signed statement
 * is public only where its log is: the service's public log, or a tenancy whose registration
 * policy is open (SCRAPI publishes those at `/entries/{id}`). A statement registered with a
 * token in a closed tenancy's log stays that tenancy's, like its other records.
 */
function freeEventReadable(
  ctx: Pick<Ctx, "config">,
  caller: Principal | undefined,
  free: { tenant_id: string; registered: boolean; open_log: boolean },
): boolean {
  if (caller?.isAdmin && caller.tenantId === free.tenant_id) return true;
  return free.registered && (free.open_log || free.tenant_id === ctx.config.scittPublicLog);
}

/**
 * A registered statement the caller may read, in the log named by the path when it names one
 * (an entry of another log is not found there): its event id. Otherwise, with a token, 404.
 * Without one, the same answer for an entry that exists as for one that does not, whatever the
 * id's form (`eventId` undefined: no entry can have it), so that an anonymous caller cannot tell
 * which entry ids a closed log holds: 404 where the path is a log anyone may read (the service's
 * root when it has a public log, an open tenancy's log: SCRAPI -11's "not registered"), 401
 * anywhere else (a token might grant it).
 */
export async function requireReadableStatement(
  ctx: Pick<Ctx, "config" | "db">,
  caller: Principal | undefined,
  eventId: string | undefined,
  log: string | undefined,
): Promise<string> {
  const free = eventId === undefined ? undefined : await freeEventOwner(ctx.db, eventId);
  const here = free?.registered === true && (log === undefined || free.tenant_id === log);
  if (eventId !== undefined && free && here && freeEventReadable(ctx, caller, free)) return eventId;
  if (caller || (await publicLog(ctx, log))) throw notFound("entry");
  throw unauthenticated("this entry is not in a public log: a token is required");
}

/**
 * Whether anyone may read the entries of the log a path names: the service's public log (at the
 * root, `log` undefined, when it has one), or an open tenancy's.
 */
async function publicLog(ctx: Pick<Ctx, "config" | "db">, log: string | undefined): Promise<boolean> {
  if (log === undefined) return ctx.config.scittPublicLog !== undefined;
  if (log === ctx.config.scittPublicLog) return true;
  return (await getRegistrationPolicy(ctx.db, log)).open && (await getTenancy(ctx.db, log)) !== undefined;
}

/** A record known only by its id (receipts): 401 without a token, 404 with one, unless the caller may read it. */
export async function requireReadableRecord(
  ctx: Pick<Ctx, "caches" | "config" | "db">,
  caller: Principal | undefined,
  recordId: string,
): Promise<void> {
  if ((await readableRecordName(ctx, caller, recordId)) === undefined) throw refusal(caller, "event");
}
