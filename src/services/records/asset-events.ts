import { type Outcome, settle } from "../../batching/coalescer.js";
import type { Ctx, Principal } from "../../context.js";
import { badRequest, forbidden, notFound } from "../../errors/api-error.js";
import { isUuid } from "../../formats/ids.js";
import { type AssetEventRecord, assetEventRecord } from "../../formats/record/asset-event.js";
import type { Principal4 } from "../../store/records/asset-events.js";
import { type AssetRow, getAsset } from "../../store/records/assets.js";
import { type AccessView, writeRefusal } from "../access/access-view.js";
import { acceptedPrincipal, declaredPrincipal } from "../identity/principals.js";
import type { PendingEvent } from "../write/asset-event-group.js";
import {
  type AttachmentRef,
  checkDocumentChange,
  checkLookupValues,
  validateAttributes,
  withCanonicalSubject,
} from "./attributes.js";
import { commitErasable, erasurePolicy } from "./erasable.js";
import { requestTime } from "./list-query.js";
import { checkAttachments, checkHomeLocation } from "./reference-check.js";

export interface EventInput {
  operation: string;
  behaviour: string;
  event_attributes?: Record<string, unknown> | undefined;
  asset_attributes?: Record<string, unknown> | undefined;
  timestamp_declared?: string | undefined;
  principal_declared?: Partial<Principal4> | undefined;
  /** Attributes to commit by a salted hash, beside the tenancy's erasure policy (ours: docs/vcon-lifecycle.md). */
  erasable_attributes?: string[] | undefined;
}

// A Map, not an object: an operation named `constructor` must not find Object.prototype's.
const OPERATIONS = new Map<string, string[]>([
  ["Record", ["RecordEvidence"]],
  ["StopTracking", ["Builtin"]],
  ["StartTracking", ["Builtin"]],
]);

/** Checks operation/behaviour pairing and the attribute maps of a client's event; returns the attachments they reference. */
function validateEventInput(input: EventInput): AttachmentRef[] {
  const behaviours = OPERATIONS.get(input.operation);
  if (!behaviours) throw badRequest(`operation must be one of ${[...OPERATIONS.keys()].join(", ")}`);
  if (!behaviours.includes(input.behaviour))
    throw badRequest(`operation ${input.operation} needs behaviour ${behaviours.join(" or ")}`);
  const ea = input.event_attributes ?? {};
  const aa = input.asset_attributes ?? {};
  if (input.operation !== "Record" && (Object.keys(ea).length || Object.keys(aa).length))
    throw badRequest(`operation ${input.operation} takes no attributes`);
  const refs = validateAttributes("event_attributes", ea);
  // `payload` has a B-tree index of its own (migration 015), as `subject` does (030).
  checkLookupValues("event_attributes", ea, ["subject", "payload"]);
  const assetRefs = validateAttributes("asset_attributes", aa);
  if (assetRefs.length) refs.push(...assetRefs);
  checkDocumentChange("asset_attributes", aa);
  if (input.timestamp_declared !== undefined) requestTime(input.timestamp_declared, "timestamp_declared");
  return refs;
}

/** A client's event, checked, ready for a group. */
export interface CheckedEvent {
  /**
   * The event for the group, `authorize` and its erasable values included: made whole here, since
   * a spread of it per request cost ~7 % of an ingested event's service CPU (`pair`,
   * docs/performance.md).
   */
  pending: PendingEvent;
  /**
   * Refuses the event on an asset the caller may not write it to: run against the asset as it is
   * when the event is written (locked, or compared with what was read in the same statement).
   */
  authorize(asset: AssetRow): void;
  /** The blobs and the location it references, to check against the tenancy (`checkReferences`); nearly always none. */
  references: AttachmentRef[] | undefined;
}

/**
 * Validates a client's event and commits its erasable attributes under the tenancy's erasure
 * `policy`: a pure check, no I/O. The erasable values ride on the pending event into its group's
 * transaction, so a refused event leaves none. Its references, if any, are checked by
 * `checkReferences` before the event goes to its group.
 */
export function checkEvent(
  p: Principal,
  view: AccessView,
  assetId: string,
  input: EventInput,
  policy: readonly string[],
): CheckedEvent {
  const eventAttributes = withCanonicalSubject(input.event_attributes);
  const assetAttributes = withCanonicalSubject(input.asset_attributes);
  // Copied only when a subject was spelled otherwise: most events' maps are kept as they came.
  if (eventAttributes !== input.event_attributes || assetAttributes !== input.asset_attributes)
    input = { ...input, event_attributes: eventAttributes, asset_attributes: assetAttributes };
  const refs = validateEventInput(input);
  // Erasable attributes are committed by a salted hash; their values are stored with the record.
  const committed = commitErasable(
    policy,
    input.event_attributes ?? {},
    input.asset_attributes ?? {},
    input.erasable_attributes,
  );
  const ea = committed.eventAttributes;
  const aa = committed.assetAttributes;
  const authorize = (asset: AssetRow) => {
    const grant = view.grant(asset);
    if (!grant) throw notFound("asset");
    if (asset.tenant_id !== p.tenantId)
      throw forbidden("only the tenancy that created an asset can write to it");
    const refusal = writeRefusal(ea, aa, input.behaviour, grant);
    if (refusal) throw forbidden(refusal);
  };
  return {
    pending: {
      assetId,
      tenantId: p.tenantId,
      operation: input.operation,
      behaviour: input.behaviour,
      eventAttributes: ea,
      assetAttributes: aa,
      declared: declaredPrincipal(input.principal_declared),
      accepted: acceptedPrincipal(p),
      timestampDeclared: input.timestamp_declared ? new Date(input.timestamp_declared) : undefined,
      authorize,
      creates: undefined,
      followers: undefined,
      erasables: committed.values,
    },
    authorize,
    references: refs.length || typeof aa.arc_home_location_identity === "string" ? refs : undefined,
  };
}

/**
 * Checks the blobs and the location an event references against the tenancy, before its group,
 * and only for a caller who may write the event: their answers (no such blob, another hash, no
 * such location) would otherwise tell anyone which blobs and locations the tenancy holds, and
 * confirm a guessed blob's content by its hash. `standing` is the asset as it stands before the
 * event when the caller has it (a creation's first events); otherwise it is read.
 */
export async function checkReferences(
  ctx: Pick<Ctx, "db">,
  p: Principal,
  checked: CheckedEvent,
  standing?: AssetRow,
): Promise<void> {
  if (!checked.references) return;
  const asset = standing ?? (await getAsset(ctx.db, checked.pending.assetId));
  if (!asset) throw notFound("asset");
  checked.authorize(asset);
  if (checked.references.length) await checkAttachments(ctx.db, p, checked.references);
  await checkHomeLocation(ctx.db, p.tenantId, checked.pending.assetAttributes);
}

/**
 * A client's event checked whole: under the tenancy's erasure policy, its references too. A
 * promise only when something had to be read (a policy not cached, references): nearly every
 * event is answered at once, with no turn of the microtask queue before its group.
 */
export function checkedEvent(
  ctx: Pick<Ctx, "db" | "caches">,
  p: Principal,
  view: AccessView,
  assetId: string,
  input: EventInput,
  standing?: AssetRow,
): CheckedEvent | Promise<CheckedEvent> {
  const policy = erasurePolicy(ctx, p.tenantId);
  if (policy instanceof Promise)
    return policy.then((read) =>
      referencesChecked(ctx, p, checkEvent(p, view, assetId, input, read), standing),
    );
  const checked = checkEvent(p, view, assetId, input, policy);
  return checked.references ? referencesChecked(ctx, p, checked, standing) : checked;
}

async function referencesChecked(
  ctx: Pick<Ctx, "db">,
  p: Principal,
  checked: CheckedEvent,
  standing: AssetRow | undefined,
): Promise<CheckedEvent> {
  await checkReferences(ctx, p, checked, standing);
  return checked;
}

/** POST …/assets/{uuid}/events: authorised by the caller's grant on that asset. */
export async function createAssetEvent(
  ctx: Pick<Ctx, "db" | "caches" | "writePath">,
  p: Principal,
  view: AccessView,
  assetId: string,
  input: EventInput,
) {
  const made = checkedEvent(ctx, p, view, assetId, input);
  const checked = made instanceof Promise ? await made : made;
  // Authorised by the group against the asset as it is written on (write/asset-event-group.ts): no read per event.
  const [row] = await ctx.writePath.writeEvent(checked.pending);
  // Its erasable values, if it has any, came back with it: the record discloses them, with no read.
  return assetEventRecord(row);
}

/** An item of `POST …/assets/-/events:batch`: an event, and the asset it is for by identity. */
export interface AssetEventItem {
  asset_identity: string;
  event: EventInput;
}

/**
 * The asset's uuid from `assets/<uuid>`. In a path a bad uuid is the asset's 404; in a body it is
 * a malformed field, the item's 400.
 */
function assetIdOf(identity: string): string {
  const id = identity.startsWith("assets/") ? identity.slice("assets/".length) : "";
  if (!isUuid(id)) throw badRequest("asset_identity must be assets/<uuid>");
  return id.toLowerCase();
}

/**
 * `POST /archivist/v2/assets/-/events:batch` (ours, not DataTrails'): each item exactly as its own
 * `POST …/assets/{uuid}/events` (`createAssetEvent`: checked, authorised against the locked
 * asset, committed), all submitted at once so that they share the write path's group
 * transactions; one item's failure is its own. As `assets:batchWithEvents` does for creations, it
 * saves the request per event (a producer's later operation on each of many known vCons), not any check.
 */
export function createAssetEvents(
  ctx: Pick<Ctx, "db" | "caches" | "writePath">,
  p: Principal,
  view: AccessView,
  items: AssetEventItem[],
): Promise<Array<Outcome<AssetEventRecord>>> {
  return Promise.all(
    items.map((item) =>
      settle(() => createAssetEvent(ctx, p, view, assetIdOf(item.asset_identity), item.event)),
    ),
  );
}
