/** An asset event as the API returns it (the fields the hashing schemes read). */
export interface AssetEventRecord {
  identity: string;
  asset_identity?: string;
  event_attributes: Record<string, unknown>;
  asset_attributes: Record<string, unknown>;
  operation: string;
  behaviour: string;
  timestamp_declared: string;
  timestamp_accepted: string;
  timestamp_committed: string;
  principal_declared: Record<string, unknown>;
  principal_accepted: Record<string, unknown>;
  confirmation_status?: string;
  from?: string;
  tenant_identity: string;
}

export const FIELDS_V1_V2 = [
  "identity",
  "asset_identity",
  "event_attributes",
  "asset_attributes",
  "operation",
  "behaviour",
  "timestamp_declared",
  "timestamp_accepted",
  "timestamp_committed",
  "principal_accepted",
  "principal_declared",
  "confirmation_status",
  "from",
  "tenant_identity",
] as const;

export const FIELDS_V3 = [
  "identity",
  "event_attributes",
  "asset_attributes",
  "operation",
  "behaviour",
  "timestamp_declared",
  "timestamp_accepted",
  "timestamp_committed",
  "principal_accepted",
  "principal_declared",
  "tenant_identity",
] as const;

const toPrivate = (s: unknown) =>
  typeof s === "string" && s.startsWith("publicassets/") ? `assets/${s.slice("publicassets/".length)}` : s;

/** Keeps exactly `fields`, optionally naming public identities as their private form. */
export function pickFields(
  event: AssetEventRecord,
  fields: readonly string[],
  privateIdentities: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const e = event as unknown as Record<string, unknown>;
  for (const f of fields) {
    const v = e[f] ?? "";
    out[f] = privateIdentities && (f === "identity" || f === "asset_identity") ? toPrivate(v) : v;
  }
  return out;
}
