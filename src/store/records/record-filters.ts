import type { Where } from "../query/sql.js";
import { EVENT_STATUS_SQL } from "./asset-events.js";
import { ASSET_STATUS_SQL } from "./assets.js";
import type { AttributeTable } from "./attribute-sql.js";

/**
 * The assets table as the record lists filter it: query prefix → attributes column, tenancy
 * column, and the column whose subject is indexed in its canonical spelling (migration 050).
 */
export const ASSET_LIST: AttributeTable = {
  table: "assets",
  columns: { attributes: "attributes" },
  tenantColumn: "tenant_id",
  canonicalSubject: ["attributes"],
};

/**
 * The asset_events table as the record lists filter it. Its tenancy column is qualified: the
 * readable-events clause tests the event's asset in a subquery over `assets`.
 */
export const EVENT_LIST: AttributeTable = {
  table: "asset_events",
  columns: {
    event_attributes: "event_attributes",
    asset_attributes: "asset_attributes",
    principal_declared: "principal_declared",
  },
  tenantColumn: "asset_events.tenant_id",
};

export interface AssetFilters {
  proofMechanism?: string | undefined;
  /** Only assets tracked so (undefined: tracked or not). */
  tracked?: string | undefined;
  /** Confirmation statuses, any of which matches (empty: any status). */
  statuses: readonly string[];
}

/** Adds the asset list's scalar filters (after its attribute filters, in this order). */
export function filterAssets(w: Where, f: AssetFilters): void {
  if (f.proofMechanism) w.and(`proof_mechanism = ${w.p(f.proofMechanism)}`);
  if (f.tracked) w.and(`tracked = ${w.p(f.tracked)}`);
  if (f.statuses.length) w.and(`${ASSET_STATUS_SQL} = any(${w.p(f.statuses)}::text[])`);
}

export interface AssetEventFilters {
  /** Confirmation statuses, any of which matches (empty: any status). */
  statuses: readonly string[];
  /** The statuses at or above the minimum trust asked for (undefined: no minimum). */
  trusted?: readonly string[] | undefined;
  proofMechanism?: string | undefined;
  /** Accepted at or after. */
  since?: Date | undefined;
  /** Accepted strictly before. */
  before?: Date | undefined;
}

/** Adds the event list's scalar filters (after its attribute filters, in this order). */
export function filterAssetEvents(w: Where, f: AssetEventFilters): void {
  if (f.statuses.length) w.and(`${EVENT_STATUS_SQL} = any(${w.p(f.statuses)}::text[])`);
  if (f.trusted) w.and(`${EVENT_STATUS_SQL} = any(${w.p(f.trusted)}::text[])`);
  if (f.proofMechanism) w.and(`proof_mechanism = ${w.p(f.proofMechanism)}`);
  if (f.since) w.and(`timestamp_accepted >= ${w.p(f.since)}`);
  if (f.before) w.and(`timestamp_accepted < ${w.p(f.before)}`);
}

/** Restricts an asset_events query to one asset's events. */
export function ofAsset(w: Where, assetId: string): void {
  w.and(`asset_id = ${w.p(assetId)}`);
}
