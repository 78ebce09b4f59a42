import { isRecord } from "../vcon/unsigned-check.js";
import { type AssetClaims, IDENTITY, type ResolvedAsset } from "./asset-claims.js";
import type { ArchivistClient } from "./client.js";
import { TransientDeliveryError } from "./errors.js";

const MAX_CACHED = 10_000;

/** Attributes of the one asset that carries a vCon's events. */
export function vconAssetAttributes(vconUuid: string): Record<string, string> {
  return {
    arc_display_type: "vcon",
    arc_display_name: `vCon ${vconUuid}`,
    subject: `vcon://${vconUuid}`,
    conserver_link_version: "0.3.0",
  };
}

function identityOf(v: unknown, what: string): string {
  const id = isRecord(v) ? v.identity : undefined;
  // The identity goes into later request paths: a hostile or broken backend must not steer them.
  if (typeof id !== "string" || !IDENTITY.test(id))
    throw new TransientDeliveryError(`${what} answered without a valid asset identity`);
  return id;
}

export type { ResolvedAsset };

/**
 * Finds the asset of a vCon (`attributes.subject=vcon://<uuid>`, `arc_display_type=vcon`) or
 * creates it. Identities are cached, and lookups for the same vCon in this process share one
 * request, so concurrent jobs of one vCon do not create two assets; with claims shared through
 * Redis, neither do workers in different processes (one finds or creates, the others read what
 * it recorded).
 */
export class AssetResolver {
  private readonly cache = new Map<string, string>();
  private readonly inflight = new Map<string, Promise<ResolvedAsset>>();

  /** With claims shared between processes, only one of them creates a new vCon's asset. */
  constructor(private readonly claims?: AssetClaims) {}

  /** `assets/<id>` of the vCon's asset on the backend `backendKey`. */
  async resolve(client: ArchivistClient, backendKey: string, vconUuid: string): Promise<string> {
    return (await this.resolveAsset(client, backendKey, vconUuid)).identity;
  }

  /**
   * The vCon's asset, and whether this call (or one it joined) has just created it: such an
   * asset cannot hold any event of this job yet, so the caller need not look for one.
   */
  async resolveAsset(
    client: ArchivistClient,
    backendKey: string,
    vconUuid: string,
    signal?: AbortSignal,
  ): Promise<ResolvedAsset> {
    const key = `${backendKey}|${vconUuid}`;
    const hit = this.cache.get(key);
    if (hit) return { identity: hit, created: false };
    let p = this.inflight.get(key);
    if (!p) {
      const find = () => this.findOrCreate(client, vconUuid);
      p = (this.claims ? this.claims.resolve(key, find, signal) : find()).finally(() =>
        this.inflight.delete(key),
      );
      this.inflight.set(key, p);
    }
    const resolved = await p;
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, resolved.identity);
    return resolved;
  }

  private async findOrCreate(client: ArchivistClient, vconUuid: string): Promise<ResolvedAsset> {
    const attrs = vconAssetAttributes(vconUuid);
    const found = await client.call("GET", "/archivist/v2/assets", {
      route: "assets.list",
      query: {
        "attributes.subject": attrs.subject as string,
        "attributes.arc_display_type": "vcon",
        page_size: "1",
      },
    });
    const first = isRecord(found) && Array.isArray(found.assets) ? found.assets[0] : undefined;
    if (first !== undefined) return { identity: identityOf(first, "assets list"), created: false };
    const created = await client.call("POST", "/archivist/v2/assets", {
      route: "assets.create",
      body: { behaviours: ["RecordEvidence"], attributes: attrs, public: false },
    });
    return { identity: identityOf(created, "asset create"), created: true };
  }
}
