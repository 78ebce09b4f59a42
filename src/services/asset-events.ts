import { randomUUID } from "node:crypto";
import type { Ctx, Principal } from "../context.js";
import { badRequest, forbidden, notFound } from "../core/api/api-error.js";
import { type AssetEventRow, insertAssetEvents, type Principal4 } from "../store/asset-events.js";
import { type AssetRow, lockAsset, updateAssetState } from "../store/assets.js";
import type { Queryable } from "../store/db.js";
import { eventOut } from "../store/record-json.js";
import { type AccessView, writeRefusal } from "./access-view.js";
import { checkDocumentChange, validateAttributes } from "./attributes.js";
import { acceptedPrincipal, declaredPrincipal } from "./principals.js";
import { checkAttachments, checkHomeLocation } from "./reference-check.js";
import { tenantWalletAddress } from "./tenant-wallet.js";

export interface EventInput {
  operation: string;
  behaviour: string;
  event_attributes?: Record<string, unknown> | undefined;
  asset_attributes?: Record<string, unknown> | undefined;
  timestamp_declared?: string | undefined;
  principal_declared?: Partial<Principal4> | undefined;
}

const OPERATIONS: Record<string, string[]> = {
  Record: ["RecordEvidence"],
  StopTracking: ["Builtin"],
  StartTracking: ["Builtin"],
};

/** Checks operation/behaviour pairing and the attribute maps of a client's event. */
export function validateEventInput(input: EventInput): void {
  const behaviours = OPERATIONS[input.operation];
  if (!behaviours) throw badRequest(`operation must be one of ${Object.keys(OPERATIONS).join(", ")}`);
  if (!behaviours.includes(input.behaviour))
    throw badRequest(`operation ${input.operation} needs behaviour ${behaviours.join(" or ")}`);
  const ea = input.event_attributes ?? {};
  const aa = input.asset_attributes ?? {};
  if (input.operation !== "Record" && (Object.keys(ea).length || Object.keys(aa).length))
    throw badRequest(`operation ${input.operation} takes no attributes`);
  validateAttributes("event_attributes", ea);
  validateAttributes("asset_attributes", aa);
  checkDocumentChange("asset_attributes", aa);
  if (input.timestamp_declared !== undefined && Number.isNaN(Date.parse(input.timestamp_declared)))
    throw badRequest("timestamp_declared must be an RFC 3339 timestamp");
}

/** Writes one event on a locked asset: applies its attribute changes and tracking, in the caller's transaction. */
export async function appendEvent(
  tx: Queryable,
  ctx: Ctx,
  asset: AssetRow,
  e: {
    operation: string;
    behaviour: string;
    eventAttributes: Record<string, unknown>;
    assetAttributes: Record<string, unknown>;
    declared: Principal4;
    accepted: Principal4;
    timestampDeclared?: Date;
  },
): Promise<AssetEventRow> {
  const now = new Date();
  const [row] = await insertAssetEvents(tx, [
    {
      id: randomUUID(),
      asset_id: asset.id,
      tenant_id: asset.tenant_id,
      operation: e.operation,
      behaviour: e.behaviour,
      event_attributes: e.eventAttributes,
      asset_attributes: e.assetAttributes,
      timestamp_declared: e.timestampDeclared ?? now,
      timestamp_accepted: now,
      principal_declared: e.declared,
      principal_accepted: e.accepted,
      confirmation_status: "STORED",
      proof_mechanism: asset.proof_mechanism,
      public: asset.public,
      from_address: await tenantWalletAddress(ctx.keys, asset.tenant_id),
    },
  ]);
  const tracked =
    e.operation === "StopTracking"
      ? "NOT_TRACKED"
      : e.operation === "StartTracking"
        ? "TRACKED"
        : asset.tracked;
  await updateAssetState(tx, asset.id, { ...asset.attributes, ...e.assetAttributes }, tracked);
  await tx.query("update assets set confirmation_status = 'PENDING' where id = $1", [asset.id]);
  return row as AssetEventRow;
}

/** POST …/assets/{uuid}/events: authorised by the caller's grant on that asset. */
export async function createAssetEvent(
  ctx: Ctx,
  p: Principal,
  view: AccessView,
  assetId: string,
  input: EventInput,
) {
  validateEventInput(input);
  const ea = input.event_attributes ?? {};
  const aa = input.asset_attributes ?? {};
  const row = await ctx.db.transaction(async (tx) => {
    const asset = await lockAsset(tx, assetId);
    const grant = asset && view.grant(asset);
    if (!asset || !grant) throw notFound("asset");
    if (asset.tenant_id !== p.tenantId)
      throw forbidden("only the tenancy that created an asset can write to it");
    const refusal = writeRefusal(grant, input.behaviour, ea, aa);
    if (refusal) throw forbidden(refusal);
    await checkAttachments(tx, asset.tenant_id, [
      ...validateAttributes("event_attributes", ea),
      ...validateAttributes("asset_attributes", aa),
    ]);
    await checkHomeLocation(tx, asset.tenant_id, aa);
    return appendEvent(tx, ctx, asset, {
      operation: input.operation,
      behaviour: input.behaviour,
      eventAttributes: ea,
      assetAttributes: aa,
      declared: declaredPrincipal(input.principal_declared),
      accepted: acceptedPrincipal(p),
      ...(input.timestamp_declared ? { timestampDeclared: new Date(input.timestamp_declared) } : {}),
    });
  });
  ctx.wake.commit(row.tenant_id);
  return eventOut(row);
}
