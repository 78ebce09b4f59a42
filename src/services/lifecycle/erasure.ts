// The lifecycle room (src/services/lifecycle/): the vCon lifecycle's use cases (docs/vcon-lifecycle.md):
// erasure of erasable attributes and the tenancy's erasure policy, consent verification, and the
// revocation notices sent to registered processors. Breach is derived from records alone, by the
// audit room (verify/lifecycle). Like every service it may use the store, the keys, core and the
// audit room, and the other services' use cases (records, access, identity, write).
import type { Ctx, Principal } from "../../context.js";
import { badRequest, forbidden, notFound } from "../../errors/api-error.js";
import { CodedError } from "../../formats/coded-error.js";
import { LIFECYCLE_ATTRIBUTES } from "../../formats/lifecycle/vocabulary.js";
import { assetEventRecord } from "../../formats/record/asset-event.js";
import { commitmentOf } from "../../formats/record/erasable.js";
import { freeEventRecord } from "../../formats/record/free-event.js";
import { contentReferenced, deleteBlobs, heldBlobs, lockContent } from "../../store/blobstore/blobs.js";
import type { Queryable } from "../../store/drivers/db.js";
import { erasableRows, eraseValues, lockErasure } from "../../store/records/erasable-values.js";
import { writeViewFor } from "../access/caller-view.js";
import { acceptedPrincipal } from "../identity/principals.js";
import { checkEvent, checkReferences } from "../records/asset-events.js";
import { checkErasableNames, erasurePolicy } from "../records/erasable.js";
import { checkFreeEvent } from "../records/free-events.js";
import type { PendingRecord, WrittenRecord } from "../write/write-records.js";
import { type Target, targetRecords } from "./erasure-targets.js";

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

/** The principal as an erasure names it: who the service authenticated. */
function erasedBy(p: Principal): string {
  const a = acceptedPrincipal(p);
  return a.display_name && a.display_name !== a.subject ? `${a.display_name} (${a.subject})` : a.subject;
}

/** An erasable value (its commitment), or an attachment whose blob goes with the record. */
interface Found {
  record: Target;
  attribute: string;
  commitment: string;
  blob?: string;
}

/** The erasures grouped by where each is recorded: an asset's trail, or "" for one asset-free erasure record. */
type Group = [asset: string, items: Found[]];

/** What the erasure's transaction did: its records' names, and per group the keys (`keyOf`) erased now. */
interface Done {
  identities: string[];
  done: Array<Set<string>>;
}

const keyOf = (f: Found) => (f.blob ? `blob:${f.blob}` : f.commitment);

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
  const found = erasablesOf(records, only);
  const held = await stillHeld(ctx, p.tenantId, found);
  const answer: ErasureAnswer = { erasures: [], erased: [], erased_blobs: [], already_erased: [] };
  for (const f of found)
    if (!held.has(keyOf(f)))
      answer.already_erased.push({ record: f.record.identity, attribute: f.attribute });
  // Asset groups first, then the asset-free one: the order the records are written in.
  const groups = groupsOf(found.filter((f) => held.has(keyOf(f))));
  if (groups.length === 0) return answer;
  const written = await recordAndErase(ctx, p, input, basis, groups);
  if (!written) {
    for (const f of found) answer.already_erased.push({ record: f.record.identity, attribute: f.attribute });
    return answer;
  }
  return answered(answer, groups, written);
}

/** Every erasable value and attached blob of the records, of the attributes `only` names when it is given. */
function erasablesOf(records: Target[], only: Set<string> | undefined): Found[] {
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
  return found;
}

/** The keys (`keyOf`) of what the store still holds: values not yet erased, blobs not yet deleted. */
async function stillHeld(ctx: Pick<Ctx, "db">, tenantId: string, found: Found[]): Promise<Set<string>> {
  const commitments = found.filter((f) => !f.blob).map((f) => f.commitment);
  const blobIds = [...new Set(found.flatMap((f) => (f.blob ? [f.blob] : [])))];
  const values = await erasableRows(ctx.db, tenantId, commitments);
  return new Set([
    ...values.filter((r) => r.value !== null).map((r) => r.commitment),
    ...(await heldBlobs(ctx.db, tenantId, blobIds)).map((id) => `blob:${id}`),
  ]);
}

/** What is to be erased, grouped by where its erasure is recorded: asset groups, then the asset-free one. */
function groupsOf(found: Found[]): Group[] {
  const pending = new Map<string, Found[]>();
  for (const f of found) {
    const key = f.record.asset ?? "";
    (pending.get(key) ?? pending.set(key, []).get(key))?.push(f);
  }
  const groups = [...pending];
  return [...groups.filter(([asset]) => asset !== ""), ...groups.filter(([asset]) => asset === "")];
}

/** The attributes of the erasure record of one group. */
function erasureRecordAttributes(items: Found[], basis: string): Record<string, unknown> {
  const subjects = [...new Set(items.map((f) => f.record.subject))];
  return {
    arc_display_type: ERASED,
    vcon_operation: ERASED,
    ...(subjects.length === 1 && subjects[0] ? { subject: subjects[0] } : {}),
    [LIFECYCLE_ATTRIBUTES.erasedRecords]: [...new Set(items.map((f) => f.record.identity))],
    [LIFECYCLE_ATTRIBUTES.erasedAttributes]: [...new Set(items.map((f) => f.attribute))],
    [LIFECYCLE_ATTRIBUTES.erasureBasis]: basis,
  };
}

/**
 * Writes the erasure records and deletes the values and blobs they record, in one transaction:
 * a crash leaves the erasure done or not done, never recorded in the log with the values still
 * served, nor done for some of a vCon's assets and not others. Undefined when a concurrent
 * erasure left nothing to erase (nothing is recorded then).
 */
async function recordAndErase(
  ctx: Ctx,
  p: Principal,
  input: ErasureInput,
  basis: string,
  groups: Group[],
): Promise<Done | undefined> {
  const writeView = await writeViewFor(ctx, p);
  const policy = await erasurePolicy(ctx, p.tenantId);
  const records: PendingRecord[] = [];
  for (const [asset, items] of groups) {
    const attributes = erasureRecordAttributes(items, basis);
    if (asset === "") {
      const trails = [...new Set(items.flatMap((f) => f.record.trails))];
      records.push(checkFreeEvent(p, { attributes, trails }, 0, policy));
      continue;
    }
    const checked = checkEvent(
      p,
      writeView,
      asset,
      { operation: "Record", behaviour: "RecordEvidence", event_attributes: attributes },
      policy,
    );
    await checkReferences(ctx, p, checked);
    records.push(checked.pending);
  }
  const erasure = { by: erasedBy(p), basis, lock: input.vcon?.toLowerCase() ?? input.record ?? "" };
  try {
    // Through the group commit, in its mode for a write that commits with other changes or not at all.
    const written = await ctx.writePath.writeAlone(records, (tx, rows) =>
      eraseWritten(ctx, tx, p.tenantId, erasure, groups, rows),
    );
    return written.result;
  } catch (err) {
    if (err instanceof NothingLeft) return undefined;
    throw err;
  }
}

/**
 * Inside the transaction that wrote the erasure records (`rows`, in the groups' order): the
 * values and salts erased, each replaced by its group's record name, and the blobs deleted.
 */
async function eraseWritten(
  ctx: Pick<Ctx, "blobs">,
  tx: Queryable,
  tenantId: string,
  erasure: { by: string; basis: string; lock: string },
  groups: Group[],
  rows: WrittenRecord[],
): Promise<Done> {
  // Concurrent erasures of one vCon (or record) take turns here: the later one finds
  // erased what the earlier erased, and records nothing (NothingLeft rolls it back).
  await lockErasure(tx, tenantId, erasure.lock);
  const identities = rows.map((r) =>
    Array.isArray(r) ? assetEventRecord(r[0]).identity : freeEventRecord(r).identity,
  );
  const done: Array<Set<string>> = [];
  for (const [i, [, items]] of groups.entries()) {
    const commitments = items.flatMap((f) => (f.blob ? [] : [f.commitment]));
    const record = identities[i] as string;
    done.push(
      new Set(await eraseValues(tx, tenantId, commitments, { by: erasure.by, basis: erasure.basis, record })),
    );
  }
  const blobIds = [...new Set(groups.flatMap(([, items]) => items.flatMap((f) => (f.blob ? [f.blob] : []))))];
  const blobs = await deleteBlobs(tx, tenantId, blobIds);
  for (const d of done) for (const b of blobs) d.add(`blob:${b.id}`);
  if (done.every((d) => d.size === 0)) throw new NothingLeft();
  // The bytes go with the last blob that holds them (content is shared by hash).
  for (const hash of new Set(blobs.map((b) => b.hash))) {
    await lockContent(tx, hash);
    if (!(await contentReferenced(tx, hash))) await ctx.blobs.remove(hash, tx);
  }
  return { identities, done };
}

/** The answer: each group's record named, and each of its items erased now or found erased before. */
function answered(answer: ErasureAnswer, groups: Group[], written: Done): ErasureAnswer {
  const blobsErased = new Set<string>();
  for (const [i, [, items]] of groups.entries()) {
    const done = written.done[i] as Set<string>;
    // A group that erased nothing (a concurrent erasure took it) still had its record written
    // with the others in the one transaction; it is named, its items as already erased.
    answer.erasures.push(written.identities[i] as string);
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
