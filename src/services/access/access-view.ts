import { type AccessGrant, fullGrant, type NameSet } from "../../core/access/index.js";
import { tenancyOnly } from "../../store/access-sql.js";
import type { AssetRow } from "../../store/assets.js";
import type { Where } from "../../store/sql.js";

export { canReadEvent, projectAttributes } from "../../core/access/index.js";
export { writeRefusal } from "../../core/access/write.js";

/** A caller's view of the records: which assets it sees and what it may do with each. */
export interface AccessView {
  /** Restricts an assets query (columns unqualified) to the assets this caller may read. */
  restrictAssets(w: Where): void;
  /** Restricts an asset_events query to the events this caller may read. */
  restrictEvents(w: Where): void;
  /** True when every asset it sees is seen whole (no per-row projection needed). */
  readonly whole: boolean;
  /** Asset attributes readable on every asset it sees. */
  readonly filterable: NameSet;
  /**
   * The tenancies in which a filter on this asset attribute must read it as missing: those where
   * it is not readable on every asset the caller sees there (empty: filter as asked everywhere).
   */
  hiddenIn(name: string): string[];
  /** The grant on one asset, or undefined when the caller may not see it at all. */
  grant(asset: Pick<AssetRow, "tenant_id" | "attributes" | "public">): AccessGrant | undefined;
  /**
   * True when every record of this tenancy is granted whole, whatever its attributes (its
   * administrators): the grant then needs no read of the asset.
   */
  wholeIn(tenantId: string): boolean;
}

/** Tenancy administrators see and write every record of their tenancy. */
export function adminView(tenantId: string): AccessView {
  const full = fullGrant();
  return {
    restrictAssets: (w) => tenancyOnly(w, tenantId),
    restrictEvents: (w) => tenancyOnly(w, tenantId),
    whole: true,
    filterable: "*",
    hiddenIn: () => [],
    grant: (asset) => (asset.tenant_id === tenantId ? full : undefined),
    wholeIn: (t) => t === tenantId,
  };
}
