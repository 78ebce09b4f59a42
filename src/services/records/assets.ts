import { type Outcome, settle } from "../../batching/coalescer.js";
import type { Ctx, Principal } from "../../context.js";
import { fullGrant, hasName } from "../../core/access/index.js";
import { uuid7 } from "../../core/node/uuid7.js";
import { badRequest, forbidden, notFound } from "../../errors/api-error.js";
import { type AssetRecord, assetRecord } from "../../formats/record/asset.js";
import { type AssetEventRecord, assetEventRecord } from "../../formats/record/asset-event.js";
import type { Face } from "../../formats/record/face.js";
import { eventsOfAsset, getAssetEvent } from "../../store/records/asset-events.js";
import { type AssetRow, getAsset, type NewAssetRow, newAssetAsRow } from "../../store/records/assets.js";
import { type AccessView, canReadEvent, projectAttributes } from "../access/access-view.js";
import { acceptedPrincipal, internalPrincipal } from "../identity/principals.js";
import { tenantWalletAddress } from "../identity/tenant-wallet.js";
import type { PendingEvent } from "../write/asset-event-group.js";
import { checkedEvent, type EventInput } from "./asset-events.js";
import { checkDocumentChange, validateAttributes, withCanonicalSubject } from "./attributes.js";
import { commitErasableMap, erasurePolicy } from "./erasable.js";
import { checkAttachments, checkHomeLocation } from "./reference-check.js";

export interface AssetInput {
  attributes?: Record<string, unknown> | undefined;
  behaviours?: string[] | undefined;
  chain_id?: string | undefined;
  proof_mechanism?: "MERKLE_LOG" | "SIMPLE_HASH" | undefined;
  public?: boolean | undefined;
  /** Creation attributes to commit by a salted hash besides the tenancy's policy (docs/vcon-lifecycle.md, §4). */
  erasable_attributes?: string[] | undefined;
}

function validateAssetInput(input: AssetInput): Record<string, unknown> {
  const attributes = withCanonicalSubject(input.attributes ?? {});
  validateAttributes("attributes", attributes);
  if (attributes.arc_profile === "Document") {
    if (input.public !== true)
      throw badRequest("a document profile asset (arc_profile=Document) must be public");
    checkDocumentChange("attributes", attributes);
  }
  return attributes;
}

/** The asset row a creation will insert, checked and authorised; with its NewAsset event. */
async function checkedCreation(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "db" | "keys">,
  p: Principal,
  view: AccessView,
  input: AssetInput,
): Promise<PendingEvent & { creates: NewAssetRow }> {
  const given = validateAssetInput(input);
  if (!p.isAdmin) {
    const g = view.grant({ tenant_id: p.tenantId, attributes: given, public: input.public ?? false });
    if (!g || !hasName(g.behaviours, "AssetCreator")) throw forbidden("creating assets is not permitted");
  }
  // Blob and location references are rare; like an event's, they are checked before the group.
  const refs = validateAttributes("attributes", given);
  if (refs.length) await checkAttachments(ctx.db, p, refs);
  await checkHomeLocation(ctx.db, p.tenantId, given);
  // Erasable creation attributes are committed by a salted hash, in the asset and its NewAsset
  // record alike; their values are stored with that record, in its group's transaction.
  const policy = erasurePolicy(ctx, p.tenantId);
  const committed = commitErasableMap(
    policy instanceof Promise ? await policy : policy,
    "asset_attributes",
    given,
    input.erasable_attributes,
  );
  const attributes = committed.attributes;
  const asset: NewAssetRow = {
    id: uuid7(),
    tenant_id: p.tenantId,
    behaviours: input.behaviours ?? ["RecordEvidence"],
    attributes,
    proof_mechanism: input.proof_mechanism ?? "MERKLE_LOG",
    public: input.public ?? false,
    chain_id: input.chain_id ?? "",
    tracked: "TRACKED",
    owner: await tenantWalletAddress(ctx.keys, p.tenantId),
    confirmation_status: "PENDING",
  };
  return {
    assetId: asset.id,
    tenantId: p.tenantId,
    operation: "NewAsset",
    behaviour: "AssetCreator",
    eventAttributes: {},
    assetAttributes: attributes,
    declared: acceptedPrincipal(p),
    accepted: internalPrincipal(ctx.baseUrl, "assets"),
    // Every pending event has every field, in one order (`checkEvent` too): objects of one shape
    // keep the group's code on its fast paths.
    timestampDeclared: undefined,
    authorize: undefined,
    creates: asset,
    followers: undefined,
    erasables: committed.values,
  };
}

/**
 * Creates an asset and its NewAsset event. Both are written by the write path's group
 * transaction, so concurrent creations share one commit with each other and with events.
 */
export async function createAsset(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "db" | "keys" | "writePath">,
  p: Principal,
  view: AccessView,
  input: AssetInput,
): Promise<AssetRecord> {
  const creation = await checkedCreation(ctx, p, view, input);
  await ctx.writePath.writeEvent(creation);
  const asset = creation.creates;
  return assetRecord(asset, asset.attributes);
}

/** Events a creation may carry: a client's first records of what the asset stands for. */
const MAX_FIRST_EVENTS = 16;

/**
 * `POST /archivist/v2/assets:withEvents` (ours, not DataTrails'): an asset, its NewAsset event
 * and its first Record events, all in one transaction or none. A producer that creates an
 * asset only to record on it (the conserver's delivery: one asset per vCon) saves a request per
 * asset, and no crash leaves the asset without the events it was made for. Each event is
 * checked and authorised as `POST …/events` would be, in order: against the new asset with the
 * `asset_attributes` of the events before it folded in.
 */
export async function createAssetWithEvents(
  ctx: Pick<Ctx, "baseUrl" | "db" | "caches" | "keys" | "writePath">,
  p: Principal,
  view: AccessView,
  input: AssetInput & { events: EventInput[] },
): Promise<{ asset: AssetRecord; events: AssetEventRecord[] }> {
  if (input.events.length === 0 || input.events.length > MAX_FIRST_EVENTS)
    throw badRequest(`events must hold 1 to ${MAX_FIRST_EVENTS} events`);
  const creation = await checkedCreation(ctx, p, view, input);
  const asset = creation.creates;
  const followers: PendingEvent[] = [];
  for (const [i, event] of input.events.entries())
    if (event.operation !== "Record")
      throw badRequest(`events[${i}]: only Record events can come with an asset`);
  for (const event of input.events) {
    // As `POST …/events` does: against the asset as it stands before this event changes it.
    const standing = newAssetAsRow(asset, new Date());
    const made = checkedEvent(ctx, p, view, asset.id, event, standing);
    const checked = made instanceof Promise ? await made : made;
    checked.authorize(standing);
    asset.attributes = { ...asset.attributes, ...checked.pending.assetAttributes };
    // Authorised here, so the group has nothing to authorise it against.
    checked.pending.authorize = undefined;
    followers.push(checked.pending);
  }
  creation.followers = followers;
  const [, ...events] = await ctx.writePath.writeEvent(creation);
  // Each event's erasable values, if any, came back with it: disclosed with no read.
  return { asset: assetRecord(asset, asset.attributes), events: events.map((e) => assetEventRecord(e)) };
}

/**
 * `POST /archivist/v2/assets:batchWithEvents` (ours): each item exactly as its own
 * `createAssetWithEvents` (checked, authorised, committed all or none), all of them submitted at
 * once so that they share the write path's group transactions; one item's failure is its own.
 * What a batch saves is the request per asset (its parsing, authentication and reply), not any check.
 */
export function createAssetsWithEvents(
  ctx: Pick<Ctx, "baseUrl" | "db" | "caches" | "keys" | "writePath">,
  p: Principal,
  view: AccessView,
  inputs: Array<AssetInput & { events: EventInput[] }>,
): Promise<Array<Outcome<{ asset: AssetRecord; events: AssetEventRecord[] }>>> {
  return Promise.all(inputs.map((input) => settle(() => createAssetWithEvents(ctx, p, view, input))));
}

/** The asset as it was at `at`: attributes and tracking folded from its events accepted by then. */
async function assetAt(ctx: Pick<Ctx, "db">, asset: AssetRow, at: Date): Promise<AssetRow | undefined> {
  const events = await eventsOfAsset(ctx.db, asset.id, at);
  if (events.length === 0) return undefined;
  let attributes: Record<string, unknown> = {};
  let tracked = "TRACKED";
  for (const e of events) {
    attributes = { ...attributes, ...e.asset_attributes };
    if (e.operation === "StopTracking") tracked = "NOT_TRACKED";
    if (e.operation === "StartTracking") tracked = "TRACKED";
  }
  return { ...asset, attributes, tracked };
}

/** Reads one asset the caller may see (404 otherwise), optionally as it was at a time. */
export async function readAsset(
  ctx: Pick<Ctx, "db">,
  view: AccessView,
  id: string,
  atTime?: Date,
  face: Face = "assets",
): Promise<AssetRecord> {
  const asset = await getAsset(ctx.db, id);
  const grant = asset && view.grant(asset);
  if (!asset || !grant) throw notFound("asset");
  if (!atTime) return assetRecord(asset, projectAttributes(asset.attributes, grant), face);
  const then = await assetAt(ctx, asset, atTime);
  if (!then) throw notFound("asset at that time");
  return assetRecord(then, projectAttributes(then.attributes, grant), face, atTime);
}

const PUBLIC_GRANT = {
  ...fullGrant(),
  writeAttributes: new Set<string>(),
  eventTypesWrite: new Set<string>(),
  behaviours: new Set<string>(),
};

/** The public view: public assets only, every attribute, read only, no caller. */
export const publicView: AccessView = {
  restriction: { kind: "public" },
  whole: true,
  filterable: "*",
  hiddenIn: () => [],
  grant: (asset) => (asset.public ? PUBLIC_GRANT : undefined),
  wholeIn: () => false,
};

/** Reads one event the caller may see (404 otherwise), with asset attributes projected. */
export async function readAssetEvent(
  ctx: Pick<Ctx, "db">,
  view: AccessView,
  assetId: string,
  eventId: string,
  face: Face = "assets",
) {
  const asset = await getAsset(ctx.db, assetId);
  const grant = asset && view.grant(asset);
  const event = grant ? await getAssetEvent(ctx.db, assetId, eventId, { erasables: true }) : undefined;
  if (!grant || !event || !canReadEvent(event.event_attributes, grant)) throw notFound("event");
  return assetEventRecord(event, face, projectAttributes(event.asset_attributes, grant));
}
