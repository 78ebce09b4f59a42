import type { TestService } from "./service.js";

/** An asset as the API answers it. */
export interface CreatedAsset {
  identity: string;
  tenant_identity: string;
  attributes: Record<string, unknown>;
}

/** A RecordEvidence event request of these event attributes (and any further fields of the request). */
export function evidence(event_attributes: Record<string, unknown>, more: Record<string, unknown> = {}) {
  return { operation: "Record", behaviour: "RecordEvidence", event_attributes, ...more };
}

/** POSTs an asset of these attributes (and any further fields of the request) as `token`. */
function postAsset(
  s: TestService,
  token: string,
  attributes: Record<string, unknown>,
  more: Record<string, unknown> = {},
): Promise<Response> {
  return s.api("/archivist/v2/assets", { method: "POST", token, json: { attributes, ...more } });
}

/** POSTs `event` on `asset` (assets/<uuid>) as `token`. */
export function postEvent(s: TestService, token: string, asset: string, event: unknown): Promise<Response> {
  return s.api(`/archivist/v2/${asset}/events`, { method: "POST", token, json: event });
}

/** A new asset of these attributes, as stored; a refusal throws. */
export async function createAsset(
  s: TestService,
  token: string,
  attributes: Record<string, unknown>,
  more: Record<string, unknown> = {},
): Promise<CreatedAsset> {
  const res = await postAsset(s, token, attributes, more);
  if (res.status !== 200) throw new Error(`asset not created: ${res.status} ${await res.text()}`);
  return (await res.json()) as CreatedAsset;
}

/**
 * The caller's tenancy log, reached through a new asset of `displayType`: the asset, the
 * tenancy's uuid and the path of its log (`/archivist/v1/merklelogs/<tenant>/tlog`).
 */
export async function tenancyLog(s: TestService, token: string, displayType: string) {
  const asset = await createAsset(s, token, { arc_display_type: displayType });
  const tenant = asset.tenant_identity.replace("tenant/", "");
  return { asset, tenant, prefix: `/archivist/v1/merklelogs/${tenant}/tlog` };
}

/**
 * A vCon's assets (those whose subject is `vcon://<uuid>`) and the attributes of the conserver's
 * events on them: those with a `vcon_operation` (an asset's own creation event has none).
 */
export async function vconAssetEvents(
  s: TestService,
  token: string,
  uuid: string,
): Promise<{ assets: number; events: Array<Record<string, unknown>> }> {
  const q = new URLSearchParams({ "attributes.subject": `vcon://${uuid}` });
  const res = await s.api(`/archivist/v2/assets?${q}`, { token });
  const assets = ((await res.json()) as { assets: Array<{ identity: string }> }).assets;
  const events: Array<Record<string, unknown>> = [];
  for (const a of assets) {
    const listed = await s.api(`/archivist/v2/${a.identity}/events`, { token });
    for (const e of (
      (await listed.json()) as { events: Array<{ event_attributes: Record<string, unknown> }> }
    ).events)
      if (e.event_attributes.vcon_operation) events.push(e.event_attributes);
  }
  return { assets: assets.length, events };
}
