import type { AccessRestriction } from "../access/restriction.js";
import type { ODataExpr } from "../odata/ast.js";
import type { AttributeFilter } from "./attribute-filter.js";

/*
 * What a list asks of the store, as data: the services parse and authorise a request into one of
 * these, and the store alone turns it into SQL (src/store/records/record-lists.ts and its neighbours).
 */

/** The query prefixes an asset list filters on (each names a jsonb column of `assets`). */
export const ASSET_FILTER_PREFIXES = ["attributes"] as const;
/** The query prefixes an asset event list filters on (each names a jsonb column of `asset_events`). */
export const EVENT_FILTER_PREFIXES = ["event_attributes", "asset_attributes", "principal_declared"] as const;
/** The query prefixes a location list filters on. */
export const LOCATION_FILTER_PREFIXES = ["attributes"] as const;

/**
 * An attribute filter as a list applies it: `hiddenIn` names the tenancies in which its asset
 * attribute is not readable on every asset the caller sees, where the filter reads it as missing
 * (so a value never matches there, and "absent" always does).
 */
export type ListAttributeFilter = AttributeFilter & { hiddenIn?: readonly string[] | undefined };

/** Which page: the `seq` of the last row of the previous page (0: the first page), and how many rows. */
interface ListPageSpec {
  cursor: number;
  limit: number;
}

/** A page of assets, newest first. */
export interface AssetListSpec {
  access: AccessRestriction;
  filters: readonly ListAttributeFilter[];
  proofMechanism?: string | undefined;
  /** Only assets tracked so (undefined: tracked or not). */
  tracked?: string | undefined;
  /** Confirmation statuses, any of which matches (empty: any status). */
  statuses: readonly string[];
  page: ListPageSpec;
}

/** A page of asset events: of one asset, or across assets. */
export interface AssetEventListSpec {
  access: AccessRestriction;
  /** One asset's events only (found through that asset's own index). */
  assetId?: string | undefined;
  filters: readonly ListAttributeFilter[];
  /** Confirmation statuses, any of which matches (empty: any status). */
  statuses: readonly string[];
  /** The statuses at or above the minimum trust asked for (undefined: no minimum). */
  trusted?: readonly string[] | undefined;
  proofMechanism?: string | undefined;
  /** Accepted at or after. */
  since?: Date | undefined;
  /** Accepted strictly before. */
  before?: Date | undefined;
  /** `oldest`: SIMPLEHASHV1 order, oldest first. */
  order: "newest" | "oldest";
  page: ListPageSpec;
}

/** Which locations a caller may read in its tenancy: all, none, or the homes of the assets it may read. */
export type LocationAccess =
  | { kind: "all" }
  | { kind: "none" }
  | { kind: "homes"; assets: AccessRestriction };

/** Locations of one tenancy, filtered. */
export interface LocationListSpec {
  tenantId: string;
  access: LocationAccess;
  /** The one location with this id. */
  id?: string | undefined;
  /** Any of these names (undefined or empty: any). */
  displayNames?: readonly string[] | undefined;
  /** Any of these descriptions (undefined or empty: any). */
  descriptions?: readonly string[] | undefined;
  filters: readonly AttributeFilter[];
}

/** A search of one tenancy's asset-free events by an OData filter (none: all of them), newest first. */
export interface FreeEventSearchSpec {
  tenantId: string;
  filter?: ODataExpr | undefined;
  skip: number;
  top: number;
}

/** The orders an auditor sorts the asset table by: newest event, name, or creation (newest first). */
export type AssetSummaryOrder = "LAST_EVENT" | "NAME" | "CREATED";

/**
 * A page of the auditor's asset table: assets with the count and newest acceptance time of the
 * events the caller may read. Paged by position: the newest-event order moves as events arrive.
 */
export interface AssetSummaryListSpec {
  /** Which assets. */
  access: AccessRestriction;
  /** Which of their events count and date (`authorised`: every event of a listed asset). */
  eventAccess: AccessRestriction;
  /**
   * A case-insensitive substring of the name, subject or type; each attribute is read as missing
   * in the tenancies `hiddenIn` names for it, so a match never tells a hidden value.
   */
  text?: { value: string; hiddenIn: (attribute: string) => readonly string[] } | undefined;
  order: AssetSummaryOrder;
  /** The tenancies whose asset names are hidden from the caller (the NAME order reads them as missing). */
  nameHiddenIn: readonly string[];
  offset: number;
  limit: number;
}
