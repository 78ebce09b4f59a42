import type { AssetRow } from "../store/assets.js";
import type { Where } from "../store/sql.js";

/** What a caller may do with one asset (the union of every policy that grants it something). */
export interface AssetGrant {
  /** Attributes readable: every one, or these names. */
  readAttributes: "*" | ReadonlySet<string>;
  writeAttributes: "*" | ReadonlySet<string>;
  eventTypesRead: "*" | ReadonlySet<string>;
  eventTypesWrite: "*" | ReadonlySet<string>;
  behaviours: "*" | ReadonlySet<string>;
}

/** A caller's view of the records: which assets it sees and what it may do with each. */
export interface AccessView {
  /** Restricts an assets query (alias `a` columns unqualified) to the assets this caller may read. */
  restrictAssets(w: Where): void;
  /** Restricts an asset_events query to events of assets this caller may read. */
  restrictEvents(w: Where): void;
  /** True when every asset it sees is seen whole (no per-row projection needed). */
  readonly whole: boolean;
  /** The grant on one asset, or undefined when the caller may not see it at all. */
  grant(asset: AssetRow): AssetGrant | undefined;
}

export const FULL_GRANT: AssetGrant = {
  readAttributes: "*",
  writeAttributes: "*",
  eventTypesRead: "*",
  eventTypesWrite: "*",
  behaviours: "*",
};

const has = (set: "*" | ReadonlySet<string>, v: string) => set === "*" || set.has(v);

/** Keeps only readable attributes. */
export function projectAttributes(
  attrs: Record<string, unknown>,
  grant: AssetGrant,
): Record<string, unknown> {
  if (grant.readAttributes === "*") return attrs;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attrs)) if (has(grant.readAttributes, k)) out[k] = v;
  return out;
}

/** An event is readable when its arc_display_type is permitted (untyped events need '*'). */
export function canReadEvent(eventAttributes: Record<string, unknown>, grant: AssetGrant): boolean {
  if (grant.eventTypesRead === "*") return true;
  const t = eventAttributes.arc_display_type;
  return typeof t === "string" && grant.eventTypesRead.has(t);
}

/** Why a write is refused, or undefined when the grant allows it. */
export function writeRefusal(
  grant: AssetGrant,
  behaviour: string,
  eventAttributes: Record<string, unknown>,
  assetChanges: Record<string, unknown>,
): string | undefined {
  if (!has(grant.behaviours, behaviour)) return `behaviour ${behaviour} is not permitted`;
  const t = eventAttributes.arc_display_type;
  if (grant.eventTypesWrite !== "*" && !(typeof t === "string" && grant.eventTypesWrite.has(t)))
    return `writing events of arc_display_type ${String(t ?? "(none)")} is not permitted`;
  for (const k of Object.keys(assetChanges))
    if (!has(grant.writeAttributes, k)) return `writing asset attribute ${k} is not permitted`;
  return undefined;
}

/** Tenancy administrators see and write every record of their tenancy. */
export function adminView(tenantId: string): AccessView {
  return {
    restrictAssets: (w) => {
      w.and(`tenant_id = ${w.p(tenantId)}`);
    },
    restrictEvents: (w) => {
      w.and(`tenant_id = ${w.p(tenantId)}`);
    },
    whole: true,
    grant: (asset) => (asset.tenant_id === tenantId ? FULL_GRANT : undefined),
  };
}
