import type { AssetEventRecord } from "./asset-event.js";
import type { FreeEventRecord } from "./free-event.js";

type AssetEventField = keyof AssetEventRecord;

/** The fields every asset event scheme reads between the identity and the tenant, in their order. */
const EVENT_BODY_FIELDS = [
  "event_attributes",
  "asset_attributes",
  "operation",
  "behaviour",
  "timestamp_declared",
  "timestamp_accepted",
  "timestamp_committed",
  "principal_accepted",
  "principal_declared",
] as const satisfies readonly AssetEventField[];

/** The fields SIMPLE_HASH v1 and v2 read of an asset event, in their order. */
export const FIELDS_V1_V2 = [
  "identity",
  "asset_identity",
  ...EVENT_BODY_FIELDS,
  "confirmation_status",
  "from",
  "tenant_identity",
] as const satisfies readonly AssetEventField[];

/** The fields the asset event leaf (and SIMPLE_HASH v3) reads, in their order. */
export const FIELDS_V3 = [
  "identity",
  ...EVENT_BODY_FIELDS,
  "tenant_identity",
] as const satisfies readonly AssetEventField[];

/** The fields the asset-free event leaf reads, in DataTrails' eventsv1 struct order. */
export const FREE_EVENT_HASHED_FIELDS = [
  "attributes",
  "trails",
  "event_type",
] as const satisfies readonly (keyof FreeEventRecord)[];

type V3Field = (typeof FIELDS_V3)[number];
type V1V2Field = (typeof FIELDS_V1_V2)[number];

/**
 * An asset event as a hashing scheme reads it: any JSON with the v3 fields, as the API returns
 * it or as another service did (verifiers hash records they did not make); the v1/v2 extras may
 * be absent and hash as "".
 */
export type HashedAssetEvent = { [K in V3Field]: unknown } & { [K in Exclude<V1V2Field, V3Field>]?: unknown };

const toPrivate = (s: unknown) =>
  typeof s === "string" && s.startsWith("publicassets/") ? `assets/${s.slice("publicassets/".length)}` : s;

/** Keeps exactly `fields`, optionally naming public identities as their private form. */
export function pickFields(
  event: HashedAssetEvent,
  fields: readonly V1V2Field[],
  privateIdentities: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const e = event as Record<string, unknown>;
  for (const f of fields) {
    const v = e[f] ?? "";
    out[f] = privateIdentities && (f === "identity" || f === "asset_identity") ? toPrivate(v) : v;
  }
  return out;
}
