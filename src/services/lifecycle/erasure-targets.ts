import type { Ctx, Principal } from "../../context.js";
import { badRequest } from "../../errors/api-error.js";
import { isUuid } from "../../formats/ids.js";
import { type AssetEventRecord, assetEventRecord } from "../../formats/record/asset-event.js";
import { freeEventRecord } from "../../formats/record/free-event.js";
import { creationEventOf } from "../../store/records/asset-events.js";
import { freeEventsOfVcon } from "../../store/records/free-events.js";
import type { AccessView } from "../access/access-view.js";
import { viewFor } from "../access/caller-view.js";
import { readAssetEvent } from "../records/assets.js";
import { readFreeEvent } from "../records/free-events.js";
import { listAssetEvents } from "../records/lists.js";

// What an erasure (and a consent verification) reads: the records a request names, as the
// caller reads them.

const PAGE = 1000;
const MAX_PAGES = 50;

/** Every asset event of the vCon (its `subject`) that `view` reads, oldest first. */
export async function recordsOfVcon(
  ctx: Pick<Ctx, "reads" | "caches" | "config">,
  view: AccessView,
  uuid: string,
): Promise<AssetEventRecord[]> {
  const out: AssetEventRecord[] = [];
  let cursor = 0;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page = await listAssetEvents(ctx, view, undefined, {
      pairs: [["event_attributes.subject", `vcon://${uuid}`]],
      pageSize: PAGE,
      cursor,
      firstPage: i === 0,
      wantCount: false,
    });
    out.push(...page.items);
    // Newest first as listed: oldest first as erased and recorded.
    if (!page.more || page.lastSeq === undefined) return out.reverse();
    cursor = page.lastSeq;
  }
  throw badRequest(`vcon://${uuid} has more than ${PAGE * MAX_PAGES} records; erase them record by record`);
}

/** A record an erasure reads: an asset event (its asset's erasure record goes beside it) or an asset-free event. */
export interface Target {
  identity: string;
  tenant_identity: string;
  maps: Partial<Record<"event_attributes" | "asset_attributes" | "attributes", Record<string, unknown>>>;
  /** The asset whose trail the erasure is recorded on, or undefined for an asset-free event. */
  asset?: string;
  subject: string;
  trails: string[];
}

function assetTarget(r: AssetEventRecord): Target {
  return {
    identity: r.identity,
    tenant_identity: r.tenant_identity,
    maps: { event_attributes: r.event_attributes ?? {}, asset_attributes: r.asset_attributes ?? {} },
    asset: r.asset_identity.replace(/^assets\//, ""),
    subject: String(r.event_attributes?.subject ?? ""),
    trails: [],
  };
}

function freeTarget(r: ReturnType<typeof freeEventRecord>): Target {
  return {
    identity: r.identity,
    tenant_identity: r.origin_tenant,
    maps: { attributes: r.attributes ?? {} },
    subject: String(r.attributes?.subject ?? ""),
    trails: r.trails ?? [],
  };
}

/**
 * A vCon's records: its asset events, the NewAsset record of each asset they are on (the asset's
 * creation attributes), and its asset-free events (on its trail, or naming it as subject).
 */
async function vconTargets(ctx: Ctx, p: Principal, uuid: string): Promise<Target[]> {
  const events = await recordsOfVcon(ctx, await viewFor(ctx, p), uuid);
  const out = events.map(assetTarget);
  const seen = new Set(events.map((e) => e.identity));
  for (const asset of new Set(events.map((e) => e.asset_identity.replace(/^assets\//, "")))) {
    const row = await creationEventOf(ctx.db, asset);
    if (!row || row.tenant_id !== p.tenantId) continue;
    const creation = assetEventRecord(row);
    if (!seen.has(creation.identity)) out.unshift(assetTarget(creation));
  }
  const free = await freeEventsOfVcon(ctx.db, p.tenantId, `vcon://${uuid}`, PAGE * MAX_PAGES);
  return [...out, ...free.map((r) => freeTarget(freeEventRecord(r)))];
}

/** The records an erasure names: exactly one of a vCon (all its records) or one record, as `p` reads them. */
export async function targetRecords(
  ctx: Ctx,
  p: Principal,
  input: { vcon?: string | undefined; record?: string | undefined },
): Promise<Target[]> {
  if ((input.vcon === undefined) === (input.record === undefined))
    throw badRequest(
      "name exactly one of vcon (vcon://<uuid>) or record (assets/<uuid>/events/<uuid> or events/<uuid>)",
    );
  if (input.vcon !== undefined) {
    const uuid = /^vcon:\/\/(.+)$/i.exec(input.vcon)?.[1] ?? "";
    if (!isUuid(uuid)) throw badRequest("vcon must be vcon://<uuid>");
    return vconTargets(ctx, p, uuid.toLowerCase());
  }
  const free = /^events\/([^/]+)$/.exec(input.record ?? "");
  if (free && isUuid(free[1] as string))
    return [freeTarget(await readFreeEvent(ctx, p, (free[1] as string).toLowerCase()))];
  const m = /^assets\/([^/]+)\/events\/([^/]+)$/.exec(input.record ?? "");
  if (!m || !isUuid(m[1] as string) || !isUuid(m[2] as string))
    throw badRequest("record must be assets/<uuid>/events/<uuid> or events/<uuid>");
  return [assetTarget(await readAssetEvent(ctx, await viewFor(ctx, p), m[1] as string, m[2] as string))];
}
