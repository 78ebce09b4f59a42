import type { AssetCreateWithEvents, AssetWithEventsMade } from "vcon-archivist/client";
import type { VconEventBody } from "../template.js";
import { isRecord } from "../vcon.js";
import { assetIdentityOf, madeAssetWithEvent } from "./answers.js";
import { BackendBatches, type BatchSpec, NOT_OFFERED } from "./backend-batches.js";
import type { ArchivistClient } from "./client.js";
import type { AssetClaims, ResolvedAsset } from "./delivery-claims.js";
import { PermanentDeliveryError } from "./errors.js";
import { Generations } from "./generations.js";
import { type AnyOfLookups, BackendLookups, groupPageSize, type LookupSpec } from "./lookups.js";

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

export type { ResolvedAsset };

/** An event to record with the asset when this call creates it (its job's idempotency key and body). */
export interface FirstEvent {
  key: string;
  event: VconEventBody;
}

/** Finding a vCon's asset by its subject: alone, or many vCons' in one list request. */
const ASSET_LOOKUP: LookupSpec<string, string> = {
  key: (vconUuid) => vconUuid,
  async one(client, vconUuid) {
    const found = await client.listAssets({
      "attributes.subject": `vcon://${vconUuid}`,
      "attributes.arc_display_type": "vcon",
      page_size: "1",
    });
    const first: unknown = found.items[0];
    return first === undefined ? undefined : assetIdentityOf(first, "assets list");
  },
  async many(client, vconUuids) {
    const pageSize = groupPageSize(vconUuids.length);
    // By subject alone: every vCon asset has the type, so asking for it too would make the
    // backend's index walk all of them once per subject; the type is checked on each answer.
    const answer = await client.listAssets({
      "attributes.subject": vconUuids.map((u) => `vcon://${u}`),
      page_size: String(pageSize),
    });
    const assets: unknown[] = answer.items;
    const wanted = new Set(vconUuids);
    const found = new Map<string, string>();
    // Each answer names the vCon it belongs to; one that names none of ours is not taken.
    for (const a of assets) {
      const attrs = isRecord(a) && isRecord(a.attributes) ? a.attributes : undefined;
      const subject = typeof attrs?.subject === "string" ? attrs.subject : "";
      const uuid = subject.startsWith("vcon://") ? subject.slice("vcon://".length) : "";
      if (attrs?.arc_display_type !== "vcon" || !wanted.has(uuid) || found.has(uuid)) continue;
      found.set(uuid, assetIdentityOf(a, "assets list"));
    }
    return { found, complete: assets.length < pageSize };
  },
};

/**
 * New vCons' assets created with their first events: alone (`assets:withEvents`), or, when
 * concurrent deliveries create several at once, in one `assets:batchWithEvents` request. Only
 * the identities are asked back (`Prefer: return=minimal`): the asset's is all a delivery reads,
 * and the records cost the service their JSON and this worker its parse. A service that does not
 * honour it answers the records, which hold the identities too.
 */
const CREATIONS: BatchSpec<AssetCreateWithEvents, AssetWithEventsMade> = {
  name: "assets:batchWithEvents",
  one: (client, body) => client.createAssetWithEvents(body, { minimal: true }),
  many: (client, requests) => client.createAssetsWithEvents({ requests }, { minimal: true }),
};

/**
 * Finds the asset of a vCon (`attributes.subject=vcon://<uuid>`, `arc_display_type=vcon`) or
 * creates it. Identities are cached, and lookups for the same vCon in this process share one
 * request, so concurrent jobs of one vCon do not create two assets; with claims shared through
 * Redis, neither do workers in different processes (one finds or creates, the others read what
 * it recorded).
 */
export class AssetResolver {
  private readonly cache = new Generations<string, string>(MAX_CACHED);
  private readonly inflight = new Map<string, { credentials: string; resolved: Promise<ResolvedAsset> }>();
  private readonly lookups = new BackendLookups(ASSET_LOOKUP);
  /** Backends that answered `assets:withEvents` as a path they do not have. */
  private readonly plainBackends = new Set<string>();
  /** Creations with a first event, batched when several are made at once. */
  private readonly creations = new BackendBatches(CREATIONS);

  /** With claims shared between processes, only one of them creates a new vCon's asset. */
  constructor(private readonly claims?: AssetClaims) {}

  /** `assets/<id>` of the vCon's asset on the backend `backendKey`. */
  async resolve(client: ArchivistClient, backendKey: string, vconUuid: string): Promise<string> {
    return (await this.resolveAsset(client, backendKey, vconUuid)).identity;
  }

  /**
   * The vCon's asset, and whether this call (or one it joined) has just created it: such an
   * asset cannot hold any event of this job yet, so the caller need not look for one. When this
   * call creates it and the backend offers `assets:withEvents`, `first` is recorded with it in
   * the same request (`carried` names it); another backend gets a plain creation. `publicAsset`:
   * an asset this call creates is public (one that exists is found as it is).
   */
  async resolveAsset(
    client: ArchivistClient,
    backendKey: string,
    vconUuid: string,
    signal?: AbortSignal,
    first?: FirstEvent,
    publicAsset = false,
  ): Promise<ResolvedAsset> {
    const key = `${backendKey}|${vconUuid}`;
    for (;;) {
      const hit = this.cache.get(key);
      if (hit) return { identity: hit, created: false };
      const running = this.inflight.get(key);
      if (!running) break;
      if (running.credentials === client.credentials) return running.resolved;
      // Another job's credentials (a secret rotated while jobs waited): its failure is not ours.
      // Joining it after it ends keeps one find-or-create per vCon at a time.
      await running.resolved.catch(() => undefined);
    }
    // Grouped with look-ups sent as the same credentials only: any member's client sends the group.
    const find = () =>
      this.findOrCreate(
        client,
        this.lookups.of(client.credentials),
        vconUuid,
        backendKey,
        first,
        publicAsset,
      );
    const resolved = (this.claims ? this.claims.resolve(key, find, signal) : find())
      .then((r) => {
        this.cache.set(key, r.identity);
        return r;
      })
      .finally(() => this.inflight.delete(key));
    this.inflight.set(key, { credentials: client.credentials, resolved });
    return resolved;
  }

  private async findOrCreate(
    client: ArchivistClient,
    lookups: AnyOfLookups<string, string>,
    vconUuid: string,
    backendKey: string,
    first: FirstEvent | undefined,
    publicAsset: boolean,
  ): Promise<ResolvedAsset> {
    const found = await lookups.find(client, vconUuid);
    if (found !== undefined) {
      lookups.exists(client, vconUuid);
      return { identity: found, created: false };
    }
    const asset = {
      behaviours: ["RecordEvidence"],
      attributes: vconAssetAttributes(vconUuid),
      public: publicAsset,
    };
    let resolved: ResolvedAsset | undefined;
    if (first && !this.plainBackends.has(backendKey)) {
      try {
        // Not resent after a lost answer (the client sends writes once): it would record the
        // event twice, on two assets.
        const made: unknown = await this.creations.send(client, { ...asset, events: [first.event] });
        resolved = {
          identity: madeAssetWithEvent(made, "asset create with events"),
          created: true,
          carried: first.key,
        };
      } catch (err) {
        if (!(err instanceof PermanentDeliveryError && NOT_OFFERED.has(err.status ?? 0))) throw err;
        // Not an extension this backend has (DataTrails' own API has none): plain creations from now on.
        this.plainBackends.add(backendKey);
      }
    }
    if (!resolved) {
      // Not resent after an unknown outcome either (a second asset for the vCon): the next attempt looks.
      const created: unknown = await client.createAsset(asset);
      resolved = { identity: assetIdentityOf(created, "asset create"), created: true };
    }
    lookups.exists(client, vconUuid);
    return resolved;
  }
}
