import type { Ctx, Principal } from "../../context.js";
import { badRequest, forbidden, notFound } from "../../errors/api-error.js";
import { CodedError } from "../../formats/coded-error.js";
import { isUuid } from "../../formats/ids.js";
import { type AssetEventRecord, assetEventRecord } from "../../formats/record/asset-event.js";
import { commitmentOf } from "../../formats/record/erasable.js";
import { freeEventRecord } from "../../formats/record/free-event.js";
import { creationEventOf } from "../../store/asset-events.js";
import { contentReferenced, deleteBlobs, heldBlobs, lockContent } from "../../store/blobs.js";
import { erasableRows, eraseValues, lockErasure, putErasurePolicy } from "../../store/erasable-values.js";
import { freeEventsOfVcon } from "../../store/free-events.js";
import { LIFECYCLE_ATTRIBUTES } from "../../verify/house.js";
import type { AccessView } from "../access/access-view.js";
import { viewFor, writeViewFor } from "../access/caller-view.js";
import { acceptedPrincipal } from "../identity/principals.js";
import { writeWith } from "../write/write-path.js";
import { type CheckedEvent, checkEvent, writingErasables } from "./asset-events.js";
import { readAssetEvent } from "./assets.js";
import { checkErasableNames } from "./erasable.js";
import { checkFreeEvent, readFreeEvent } from "./free-events.js";
import { listAssetEvents } from "./lists.js";

/** The erasure operation (vocabulary: ours, the draft names none). */
const ERASED = "vcon_attributes_erased";

/**
 * What to erase: one record (an asset event, an asset's NewAsset record, an asset-free event), or
 * every record of a vCon; all its erasable attributes, or these.
 */
export interface ErasureInput {
  vcon?: string | undefined;
  record?: string | undefined;
  attributes?: string[] | undefined;
  basis: string;
}

export interface ErasureAnswer {
  /** The erasure records written (one per asset whose records held what was erased). */
  erasures: string[];
  /** Each attribute erased now, by record (an attachment's attribute when its blob was erased). */
  erased: Array<{ record: string; attribute: string }>;
  /** The blobs erased now (`blobs/<uuid>`): attached to the records erased, deleted with their bytes. */
  erased_blobs: string[];
  /** Attributes asked for that were erased before (by an earlier erasure). */
  already_erased: Array<{ record: string; attribute: string }>;
}

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
interface Target {
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

async function targetRecords(ctx: Ctx, p: Principal, input: ErasureInput): Promise<Target[]> {
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

/** The principal as an erasure names it: who the service authenticated. */
function erasedBy(p: Principal): string {
  const a = acceptedPrincipal(p);
  return a.display_name && a.display_name !== a.subject ? `${a.display_name} (${a.subject})` : a.subject;
}

/**
 * Erases the values of a record's (or a vCon's records') erasable attributes, administrators only:
 * first an erasure record on each asset concerned (`vcon_attributes_erased`: which records and
 * attributes, under which basis; its principal is who asked), then the values and salts, which
 * are deleted from the evidentiary store and replaced by that record's name. The records, their
 * leaves and receipts do not change; a repeated request erases what is left and records that.
 */
export async function eraseAttributes(ctx: Ctx, p: Principal, input: ErasureInput): Promise<ErasureAnswer> {
  if (!p.isAdmin) throw forbidden("only administrators erase personal data");
  const basis = input.basis.trim();
  if (!basis) throw badRequest("basis is required: the legal ground the erasure is made under");
  const only = input.attributes ? new Set(checkErasableNames(input.attributes, "attributes")) : undefined;
  const records = (await targetRecords(ctx, p, input)).filter(
    (r) => r.tenant_identity === `tenant/${p.tenantId}`,
  );
  if (records.length === 0) throw notFound(input.vcon ?? input.record ?? "record");
  // An erasable value (its commitment), or an attachment whose blob goes with the record.
  type Found = { record: Target; attribute: string; commitment: string; blob?: string };
  const found: Found[] = [];
  for (const record of records)
    for (const [map, attrs] of Object.entries(record.maps))
      for (const [name, value] of Object.entries(attrs ?? {})) {
        if (only && !only.has(name)) continue;
        const commitment = commitmentOf(value);
        if (commitment !== undefined) found.push({ record, attribute: `${map}.${name}`, commitment });
        const blob = attachedBlob(value);
        if (blob) found.push({ record, attribute: `${map}.${name}`, commitment: "", blob });
      }
  const values = found.filter((f) => !f.blob);
  const blobIds = [...new Set(found.flatMap((f) => (f.blob ? [f.blob] : [])))];
  const held = new Set([
    ...(
      await erasableRows(
        ctx.db,
        p.tenantId,
        values.map((f) => f.commitment),
      )
    )
      .filter((r) => r.value !== null)
      .map((r) => r.commitment),
    ...(await heldBlobs(ctx.db, p.tenantId, blobIds)).map((id) => `blob:${id}`),
  ]);
  const keyOf = (f: Found) => (f.blob ? `blob:${f.blob}` : f.commitment);
  const answer: ErasureAnswer = { erasures: [], erased: [], erased_blobs: [], already_erased: [] };
  // Grouped by where the erasure is recorded: each asset's trail, and one asset-free erasure record.
  const pending = new Map<string, Found[]>();
  for (const f of found) {
    if (!held.has(keyOf(f))) {
      answer.already_erased.push({ record: f.record.identity, attribute: f.attribute });
      continue;
    }
    const key = f.record.asset ?? "";
    (pending.get(key) ?? pending.set(key, []).get(key))?.push(f);
  }
  const groups = [...pending];
  if (groups.length === 0) return answer;
  const by = erasedBy(p);
  const attributesOf = (items: Found[]) => {
    const subjects = [...new Set(items.map((f) => f.record.subject))];
    return {
      arc_display_type: ERASED,
      vcon_operation: ERASED,
      ...(subjects.length === 1 && subjects[0] ? { subject: subjects[0] } : {}),
      [LIFECYCLE_ATTRIBUTES.erasedRecords]: [...new Set(items.map((f) => f.record.identity))],
      [LIFECYCLE_ATTRIBUTES.erasedAttributes]: [...new Set(items.map((f) => f.attribute))],
      [LIFECYCLE_ATTRIBUTES.erasureBasis]: basis,
    };
  };
  // The erasure records and the deletion of the values they record commit in one transaction:
  // a crash leaves the erasure done or not done, never recorded in the log with the values still
  // served, nor done for some of a vCon's assets and not others.
  const writeView = await writeViewFor(ctx, p);
  const assetGroups = groups.filter(([asset]) => asset !== "");
  const freeGroups = groups.filter(([asset]) => asset === "");
  const checked: CheckedEvent[] = [];
  for (const [asset, items] of assetGroups)
    checked.push(
      await checkEvent(ctx, p, writeView, asset, {
        operation: "Record",
        behaviour: "RecordEvidence",
        event_attributes: attributesOf(items),
      }),
    );
  const free: Array<Awaited<ReturnType<typeof checkFreeEvent>>> = [];
  for (const [, items] of freeGroups)
    free.push(
      await checkFreeEvent(
        ctx,
        p,
        { attributes: attributesOf(items), trails: [...new Set(items.flatMap((f) => f.record.trails))] },
        0,
      ),
    );
  const own = [...checked.flatMap((c) => c.commitments), ...free.flatMap((f) => f.commitments)];
  let written: Awaited<ReturnType<typeof writeWith<{ identities: string[]; done: Array<Set<string>> }>>>;
  try {
    written = await writingErasables(ctx, p.tenantId, own, () =>
      writeWith(
        ctx,
        checked.map((c) => c.pending),
        free.map((f) => f.event),
        async (tx, rows) => {
          // Concurrent erasures of one vCon (or record) take turns here: the later one finds
          // erased what the earlier erased, and records nothing (NothingLeft rolls it back).
          await lockErasure(tx, p.tenantId, input.vcon?.toLowerCase() ?? input.record ?? "");
          const identities = [
            ...rows.events.map((r) => assetEventRecord(r).identity),
            ...rows.freeEvents.map((r) => freeEventRecord(r).identity),
          ];
          const done: Array<Set<string>> = [];
          for (const [i, [, items]] of [...assetGroups, ...freeGroups].entries())
            done.push(
              new Set(
                await eraseValues(
                  tx,
                  p.tenantId,
                  items.flatMap((f) => (f.blob ? [] : [f.commitment])),
                  { by, basis, record: identities[i] as string },
                ),
              ),
            );
          const blobs = await deleteBlobs(tx, p.tenantId, [
            ...new Set(groups.flatMap(([, items]) => items.flatMap((f) => (f.blob ? [f.blob] : [])))),
          ]);
          for (const d of done) for (const b of blobs) d.add(`blob:${b.id}`);
          if (done.every((d) => d.size === 0)) throw new NothingLeft();
          // The bytes go with the last blob that holds them (content is shared by hash).
          for (const hash of new Set(blobs.map((b) => b.hash))) {
            await lockContent(tx, hash);
            if (!(await contentReferenced(tx, hash))) await ctx.blobs.remove(hash, tx);
          }
          return { identities, done };
        },
      ),
    );
  } catch (err) {
    if (!(err instanceof NothingLeft)) throw err;
    for (const f of found) answer.already_erased.push({ record: f.record.identity, attribute: f.attribute });
    return answer;
  }
  const blobsErased = new Set<string>();
  for (const [i, [, items]] of [...assetGroups, ...freeGroups].entries()) {
    const done = written.result.done[i] as Set<string>;
    // A group that erased nothing (a concurrent erasure took it) still had its record written
    // with the others in the one transaction; it is named, its items as already erased.
    answer.erasures.push(written.result.identities[i] as string);
    for (const f of items) {
      const now = done.has(keyOf(f));
      if (now && f.blob) blobsErased.add(`blobs/${f.blob}`);
      (now ? answer.erased : answer.already_erased).push({
        record: f.record.identity,
        attribute: f.attribute,
      });
    }
  }
  answer.erased_blobs = [...blobsErased];
  return answer;
}

/** Raised inside an erasure's transaction when a concurrent one left it nothing to erase: nothing is recorded. */
class NothingLeft extends CodedError<"ERASURE_NOTHING_LEFT"> {
  readonly code = "ERASURE_NOTHING_LEFT";
}

/** The blob an attachment attribute names (its uuid, lower case), or undefined. */
function attachedBlob(value: unknown): string | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const id = (value as Record<string, unknown>).arc_blob_identity;
  const m = typeof id === "string" ? /^blobs\/([0-9a-f-]{36})$/i.exec(id) : null;
  return m ? (m[1] as string).toLowerCase() : undefined;
}

/** Sets the tenancy's erasable attribute names (administrators); the cache forgets at once. */
export async function setErasurePolicy(
  ctx: Pick<Ctx, "db" | "caches">,
  p: Principal,
  attributes: string[],
): Promise<{ attributes: string[] }> {
  if (!p.isAdmin) throw forbidden("only administrators set the erasure policy");
  const names = checkErasableNames(attributes, "attributes").sort();
  await putErasurePolicy(ctx.db, p.tenantId, names);
  ctx.caches.erasurePolicies.forget();
  return { attributes: names };
}
