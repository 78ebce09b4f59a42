import type { Ctx } from "../../context.js";
import * as treeProof from "../../core/log/tree-proof.js";
import { nodeSha256 } from "../../core/node/crypto.js";
import { ApiError } from "../../errors/api-error.js";
import type { MmrProofForm } from "../../formats/cose/receipt.js";
import { parseIdTimestamp } from "../../formats/ledger/idtimestamp.js";
import { mmrIndexOfLeaf } from "../../formats/mmr/indices.js";
import { includedRoot, inclusionProofIndices } from "../../formats/mmr/proof.js";
import { type ApiRecord, candidateLeaves } from "../../formats/record/api-record.js";
import {
  assetFreeEventLeafHash,
  assetFreeExtraBytes,
  assetFreeLeafSchemas,
} from "../../formats/record/leaf.js";
import * as tree from "../../formats/rfc9162/index.js";
import { registeredEvent } from "../../formats/scitt/registered.js";
import type { SignedBasis, SigningWhat } from "../../keys/signed-basis.js";
import { mmrNodesOf, type NodeSource, treeNodesOf } from "../../store/archive/period-archive.js";
import type { Queryable } from "../../store/drivers/db.js";
import { type EntryRow, entryOfRecord } from "../../store/ledger/ledger.js";
import { getSeal, type SealRow } from "../../store/ledger/seals.js";
import { type CheckpointRow, latestCheckpoint } from "../../store/ledger/tlog-checkpoints.js";
import { nodeKey } from "../../store/ledger/tlog-nodes.js";
import { readNodeSource } from "./node-source.js";
import { mmrReceiptSigning, signedReceipt, treeReceiptSigning } from "./receipt-signing.js";
import { type RowLeaf, rowGives, rowLeaves, treeLeafOf } from "./record-leaf.js";

/** The verifiable data structure a receipt or proof is of: the MMR (vds 3) or RFC 9162 (vds 1). */
export type Profile = "mmr" | "rfc9162";

const _hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const conflict = (message: string) => new ApiError("conflict", message);

/** What a proof answers for a node the database no longer holds: `node` names it. */
type MissingNode = (node: string) => Error;

/** A node missing where nothing is signed from it: removed by a database writer, answered 503 (never 500). */
const missingInternally: MissingNode = (node) =>
  new ApiError("unavailable", `${node} is missing from the database: the log's stored nodes are damaged`);

/**
 * A missing node where a receipt or proof is signed from it: refused as any other row that does
 * not follow from what was signed (503, logged, counted), since only a writer of the database
 * removes a node under a seal.
 */
export const missingRefused =
  (basis: SignedBasis, what: SigningWhat, tenantId: string): MissingNode =>
  (node) =>
    basis.refuse(what, tenantId, `${node} is missing from the database`);

/** A getter of MMR nodes, read at once; one missing is `missing`'s error. */
export async function nodes(
  src: NodeSource,
  tenantId: string,
  indices: number[],
  missing: MissingNode = missingInternally,
): Promise<(i: number) => Uint8Array> {
  const map = await mmrNodesOf(src, tenantId, indices);
  return (i) => {
    const n = map.get(i);
    if (!n) throw missing(`log node ${i}`);
    return n;
  };
}

/** Inclusion path of an entry in the MMR of `size`, and the peak it leads to. */
export async function inclusion(
  src: NodeSource,
  tenantId: string,
  entry: EntryRow,
  size: number,
  missing?: MissingNode,
) {
  const indices = inclusionProofIndices(size, entry.mmr_index);
  const get = await nodes(src, tenantId, indices, missing);
  const path = indices.map(get);
  return { path, peak: includedRoot(entry.mmr_index, entry.leaf, path) };
}

/** The latest seal that covers an entry, or 409 while the record waits for one. */
export async function sealFor(
  db: Queryable,
  tenantId: string,
  entry: EntryRow | undefined,
): Promise<SealRow> {
  if (!entry) throw conflict("the record is not yet committed to the log; try again in a moment");
  const seal = await getSeal(db, tenantId);
  if (!seal || seal.mmr_size <= entry.mmr_index)
    throw conflict("the record is committed but not yet sealed; try again in a moment");
  return seal;
}

// Past this many kept entries the cache starts over (~0.2 kB each).
const ENTRIES_KEPT = 100_000;

type Entry = EntryRow & { tenant_id: string };

/**
 * The record's log entry: the one kept once a signature vouched for it (`keepChecked`), else the
 * row as read now, unchecked. An entry never changes, but its row is a database writer's to
 * rewrite: one kept before its check would answer for it until a restart, restored row or not.
 */
async function entryOf(
  ctx: Pick<Ctx, "caches" | "reads">,
  recordId: string,
): Promise<{ entry: Entry | undefined; checked: boolean }> {
  const kept = ctx.caches.entries.get(recordId);
  if (kept) return { entry: kept, checked: true };
  return { entry: await entryOfRecord(ctx.reads, recordId), checked: false };
}

/**
 * Keeps an entry whose leaf and position a signature vouched for: its MMR leaf at `mmr_index`
 * led to a peak of a verified seal (`by: "seal"`), or its tree leaf, when that is the MMR leaf
 * (not a registered statement's payload), to a verified checkpoint's root. Its leaf index
 * follows from its MMR position, so one that does not is kept by neither.
 */
function keepChecked(ctx: Pick<Ctx, "caches">, e: Entry, by: "seal" | "checkpoint", row?: RowLeaf): void {
  if (mmrIndexOfLeaf(e.leaf_index) !== e.mmr_index) return;
  if (by === "checkpoint" && row?.statementPayload) return;
  const kept = ctx.caches.entries;
  if (kept.size >= ENTRIES_KEPT) kept.clear();
  kept.set(e.record_id, e);
}

/** The latest seal covering the entry, as kept for receipts (`LatestSeals`), or 409 while the record waits for one. */
async function recentSealFor(
  ctx: Pick<Ctx, "caches" | "reads">,
  tenantId: string,
  entry: EntryRow | undefined,
): Promise<SealRow> {
  if (!entry) throw conflict("the record is not yet committed to the log; try again in a moment");
  const seal = await ctx.caches.latestSeals.covering(tenantId, entry.mmr_index, (t) => getSeal(ctx.reads, t));
  if (!seal) throw conflict("the record is committed but not yet sealed; try again in a moment");
  return seal;
}

// Receipts signed are kept in the context's `caches.receipts`: a receipt never changes for its
// sealed size, and a verifier often asks again. Past this many the cache starts over.
const RECEIPTS_KEPT = 50_000;

export async function treeNodes(
  src: NodeSource,
  tenantId: string,
  coords: tree.NodeCoord[],
  missing: MissingNode = missingInternally,
): Promise<tree.NodeGetter> {
  const map = await treeNodesOf(src, tenantId, coords);
  return (level, idx) => {
    const n = map.get(nodeKey(level, idx));
    if (!n) throw missing(`tree node ${level}/${idx}`);
    return n;
  };
}

/**
 * Refuses (`SignedBasis.refuse`) unless `peak` is one of the peaks the seal's own signature
 * vouches for: the path was computed from rows anyone with write access to the database can
 * change, the seal's signature only the service can make.
 */
export async function peakOfSeal(
  basis: SignedBasis,
  what: SigningWhat,
  seal: SealRow,
  e: Pick<EntryRow, "mmr_index">,
  peak: Uint8Array,
): Promise<void> {
  const peaks = await basis.sealPeaks(what, seal);
  if (!peaks.some((p) => tree.sameHash(p, peak)))
    throw basis.refuse(
      what,
      seal.tenant_id,
      `the inclusion path of log entry ${e.mmr_index} leads to a peak the seal of MMR size ${seal.mmr_size} does not hold`,
    );
}

/** The newest checkpoint, when it covers the leaf; else 409 while the tree or its checkpoint is being made. */
async function checkpointCovering(
  db: Queryable,
  tenantId: string,
  leafIndex: number,
): Promise<CheckpointRow> {
  const cp = await latestCheckpoint(db, tenantId);
  if (!cp || cp.size <= leafIndex)
    throw conflict("the log's RFC 9162 tree is still being built for older entries; try again in a moment");
  return cp;
}

/**
 * The leaf's RFC 9162 inclusion path in the tree of the checkpoint's size, refused unless the
 * stored leaf and path lead to the root the checkpoint's signature vouches for.
 */
export function treePathToSigned(
  basis: SignedBasis,
  what: SigningWhat,
  cp: CheckpointRow,
  root: Uint8Array,
  leaf: { index: number; hash: Uint8Array },
  get: tree.NodeGetter,
): Uint8Array[] {
  const path = tree.inclusionProof(leaf.index, cp.size, get);
  if (!tree.verifyInclusion(leaf.index, cp.size, leaf.hash, path, root))
    throw basis.refuse(
      what,
      cp.tenant_id,
      `the record's tree leaf ${leaf.index} and its stored path do not lead to the signed root of the checkpoint of ${cp.size} entries`,
    );
  return path;
}

/**
 * The record's row, recomputed, must give the leaf the log holds for it (`rowLeaves`): a receipt
 * or proof is made only for the record the service serves. Returns the entry's RFC 9162 tree leaf hash.
 */
export async function leafOfRow(
  db: Queryable,
  basis: SignedBasis,
  what: SigningWhat,
  e: Entry,
  rows?: Map<string, RowLeaf>,
): Promise<Uint8Array> {
  return treeLeafOf(e, await rowOf(db, basis, what, e, rows));
}

/** The entry's record row as `leafOfRow` checks it: refused unless it gives the logged leaf. */
async function rowOf(
  db: Queryable,
  basis: SignedBasis,
  what: SigningWhat,
  e: Entry,
  rows?: Map<string, RowLeaf>,
): Promise<RowLeaf | undefined> {
  const row = (rows ?? (await rowLeaves(db, [e]))).get(e.record_id);
  if (!rowGives(e, row))
    throw basis.refuse(
      what,
      e.tenant_id,
      row?.unreadable
        ? `the row of record ${e.record_id} gives no leaf (${row.unreadable})`
        : `the row of record ${e.record_id} does not hash to the leaf logged for it at index ${e.mmr_index}`,
    );
  return row;
}

/**
 * The entry's MMR inclusion path in the seal and the peak it leads to, refused unless its record's
 * row gives its leaf and the peak is one the seal's signature holds; the entry is then kept.
 */
async function checkedInclusion(
  ctx: Pick<Ctx, "caches" | "reads" | "blobs" | "logGuard">,
  what: SigningWhat,
  e: Entry,
  seal: SealRow,
): Promise<{ path: Uint8Array[]; peak: Uint8Array }> {
  const basis = ctx.logGuard.basis;
  await rowOf(ctx.reads, basis, what, e);
  const proof = await inclusion(
    readNodeSource(ctx),
    e.tenant_id,
    e,
    seal.mmr_size,
    missingRefused(basis, what, e.tenant_id),
  );
  await peakOfSeal(basis, what, seal, e, proof.peak);
  keepChecked(ctx, e, "seal");
  return proof;
}

/** The MMR leaves a registered statement gives at an entry, as a verifier recomputes them from the statement alone. */
function statementLeaves(statement: Uint8Array, e: Entry): Uint8Array[] {
  const made = registeredEvent(statement);
  const { id } = parseIdTimestamp(e.idtimestamp);
  return assetFreeLeafSchemas(made).map((schema) =>
    assetFreeEventLeafHash(made, id, assetFreeExtraBytes(e.tenant_id), schema, nodeSha256),
  );
}

/**
 * Refuses (as `what`) unless a registered statement's stored bytes give the MMR leaf logged for its
 * record, that leaf first checked against the seal's signature: the bytes are a column a writer of
 * the database can swap for another genuine statement, which the record's receipt (or tlog-proof)
 * would then be served with. The MMR leaf commits to the whole statement (its digest, issuer,
 * subject); the RFC 9162 leaf to its payload alone. 409 while no seal covers the record.
 */
export async function statementFollowsLog(
  ctx: Pick<Ctx, "caches" | "reads" | "blobs" | "logGuard">,
  recordId: string,
  statement: Uint8Array,
  what: SigningWhat,
): Promise<void> {
  const e = await checkedEntry(ctx, recordId, what);
  if (!givesLeaf(() => statementLeaves(statement, e), e))
    throw ctx.logGuard.basis.refuse(
      what,
      e.tenant_id,
      `the statement stored for record ${recordId} does not give the leaf logged for it at index ${e.mmr_index}`,
    );
}

/**
 * Refuses (as `what`) unless the record, as read for a statement the service signs of it, gives
 * the leaf logged for it, that leaf checked against the seal's signature: a receipt kept from
 * before the row was rewritten proves nothing of the row read now. 409 while no seal covers it.
 */
export async function recordFollowsLog(
  ctx: Pick<Ctx, "caches" | "reads" | "blobs" | "logGuard">,
  recordId: string,
  record: ApiRecord,
  what: SigningWhat,
): Promise<void> {
  const e = await checkedEntry(ctx, recordId, what);
  if (!givesLeaf(() => candidateLeaves(record), e))
    throw ctx.logGuard.basis.refuse(
      what,
      e.tenant_id,
      `the row of record ${recordId} does not hash to the leaf logged for it at index ${e.mmr_index}`,
    );
}

/** The record's entry, once its leaf and position are checked against the latest seal (kept, then). */
async function checkedEntry(
  ctx: Pick<Ctx, "caches" | "reads" | "blobs" | "logGuard">,
  recordId: string,
  what: SigningWhat,
): Promise<Entry> {
  const { entry, checked } = await entryOf(ctx, recordId);
  const seal = await recentSealFor(ctx, entry?.tenant_id ?? "", entry);
  const e = entry as Entry;
  if (!checked) await checkedInclusion(ctx, what, e, seal);
  return e;
}

/** Whether the leaves `make` recomputes include the entry's (none when they cannot be recomputed). */
function givesLeaf(make: () => Uint8Array[], e: Entry): boolean {
  try {
    return make().some((l) => tree.sameHash(l, e.leaf));
  } catch {
    return false;
  }
}

/**
 * A COSE receipt for a committed, sealed record, signed with the sealing key: of its MMR
 * inclusion (signed over the peak; its proof in `form`, the deployed map by default), or of its
 * RFC 9162 inclusion in the tree of the newest checkpoint (signed over that tree's root). Either
 * is signed only over what the service signed before: a peak of the seal, the checkpoint's root,
 * both checked against their signatures (`SignedBasis`), never over what the rows alone give.
 */
export async function receiptFor(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "reads" | "blobs" | "keys" | "logGuard">,
  recordId: string,
  profile: Profile = "mmr",
  form: MmrProofForm = "map",
): Promise<Uint8Array> {
  const { entry, checked } = await entryOf(ctx, recordId);
  const tenantId = entry?.tenant_id ?? "";
  const seal = await recentSealFor(ctx, tenantId, entry);
  const e = entry as Entry;
  const key = await ctx.keys.get("seal", "ES256");
  const basis = ctx.logGuard.basis;
  const receipts = ctx.caches.receipts;
  if (profile === "rfc9162") {
    const cp = await checkpointCovering(ctx.reads, tenantId, e.leaf_index);
    // The kid too: after a rotation, receipts are signed anew by the current key.
    const cacheKey = `${recordId}:rfc9162:${cp.size}:${key.kid}`;
    // A receipt kept is answered for an entry a signature vouched for; another is checked first.
    const cached = receipts.get(cacheKey);
    if (cached && checked) return cached;
    const root = await basis.checkpointRoot("receipt_rfc9162", cp);
    const row = await rowOf(ctx.reads, basis, "receipt_rfc9162", e);
    const get = await treeNodes(
      readNodeSource(ctx),
      tenantId,
      treeProof.inclusionProofNodes(e.leaf_index, cp.size),
      missingRefused(basis, "receipt_rfc9162", tenantId),
    );
    const leaf = { index: e.leaf_index, hash: treeLeafOf(e, row) };
    const path = treePathToSigned(basis, "receipt_rfc9162", cp, root, leaf, get);
    keepChecked(ctx, e, "checkpoint", row);
    if (cached) return cached;
    const proof = { treeSize: cp.size, leafIndex: e.leaf_index, path, root };
    const receipt = await signedReceipt(ctx, key, treeReceiptSigning(ctx, key, tenantId, proof));
    if (receipts.size > RECEIPTS_KEPT) receipts.clear();
    receipts.set(cacheKey, receipt);
    return receipt;
  }
  const cacheKey = `${recordId}:mmr-${form}:${seal.mmr_size}:${key.kid}`;
  const cached = receipts.get(cacheKey);
  if (cached && checked) return cached;
  const { path, peak } = await checkedInclusion(ctx, "receipt", e, seal);
  if (cached) return cached;
  const receipt = await signedReceipt(
    ctx,
    key,
    mmrReceiptSigning(ctx, key, tenantId, e, { path, peak, form }),
  );
  if (receipts.size > RECEIPTS_KEPT) receipts.clear();
  receipts.set(cacheKey, receipt);
  return receipt;
}
