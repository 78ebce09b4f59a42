import { type AccessGrant, fullGrant, type NameSet } from "../../core/access/index.js";
import type { AccessRestriction } from "../../core/access/restriction.js";
import type { AssetRow } from "../../store/records/assets.js";

export { canReadEvent, projectAttributes } from "../../core/access/index.js";
export { writeRefusal } from "../../core/access/write.js";

/** A caller's view of the records: which assets it sees and what it may do with each. */
export interface AccessView {
  /**
   * The records this caller may read, as a list's specification states it: the store restricts
   * assets and asset events by it (so lists and their counts never hold another record).
   */
  readonly restriction: AccessRestriction;
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
    restriction: { kind: "tenancy", tenantId },
    whole: true,
    filterable: "*",
    hiddenIn: () => [],
    grant: (asset) => (asset.tenant_id === tenantId ? full : undefined),
    wholeIn: (t) => t === tenantId,
  };
}
