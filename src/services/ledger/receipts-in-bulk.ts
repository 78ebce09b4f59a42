import type { Ctx } from "../../context.js";
import type { Signer } from "../../core/log/sign1.js";
import * as treeProof from "../../core/log/tree-proof.js";
import { includedRoot, inclusionProofIndices } from "../../formats/mmr/proof.js";
import type * as tree from "../../formats/rfc9162/index.js";
import type { Es256Key } from "../../keys/keyring.js";
import { mmrNodesOf } from "../../store/archive/period-archive.js";
import { type EntryRow, entriesOfRecords } from "../../store/ledger/ledger.js";
import { getSeal, type SealRow } from "../../store/ledger/seals.js";
import { type CheckpointRow, latestCheckpoint } from "../../store/ledger/tlog-checkpoints.js";
import { readNodeSource } from "./node-source.js";
import {
  leafOfRow,
  missingRefused,
  type Profile,
  peakOfSeal,
  treeNodes,
  treePathToSigned,
} from "./proofs.js";
import { mmrReceiptSigning, signedReceipt, treeReceiptSigning } from "./receipt-signing.js";
import { type RowLeaf, rowLeaves } from "./record-leaf.js";

/** A record's receipt, with what its service states of it: the log, and where in it. */
export interface RecordReceipt {
  receipt: Uint8Array;
  /** `tenant/<uuid>`: the receipt's subject. */
  log: string;
  /** MMR receipts: the entry's index and the peak (hex) the receipt is signed over. */
  mmrIndex?: number;
  peak?: string;
  /** RFC 9162 receipts: the tree size the receipt is signed over. */
  treeSize?: number;
}

/** Records per step: a step's reads are one query each, and the step yields to other requests after it. */
const STEP = 200;
const RECEIPTS_KEPT = 50_000;

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

type Entry = EntryRow & { tenant_id: string };

/**
 * The receipts of many records, as `receiptFor` would give each (the same receipts, kept in the
 * same cache), with a few reads per step of records instead of a few per record: their log
 * entries in one query, each log's latest seal once, every node their inclusion proofs need in
 * one query. A record not yet committed or sealed (409 alone) is left out. The caller has
 * established that the records may be read (the evidence route lists them as the caller).
 */
export async function receiptsOfRecords(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "reads" | "blobs" | "keys" | "logGuard">,
  recordIds: string[],
  profile: Profile,
): Promise<Map<string, RecordReceipt>> {
  const out = new Map<string, RecordReceipt>();
  const seals = new Map<string, SealRow | undefined>();
  const checkpoints = new Map<string, CheckpointRow | undefined>();
  const key = await ctx.keys.get("seal", "ES256");
  for (let at = 0; at < recordIds.length; at += STEP) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    const entries = await entriesOfRecords(ctx.reads, recordIds.slice(at, at + STEP));
    const byLog = new Map<string, Entry[]>();
    for (const e of entries.values())
      (byLog.get(e.tenant_id) ?? byLog.set(e.tenant_id, []).get(e.tenant_id))?.push(e);
    for (const [tenantId, group] of byLog) {
      if (!seals.has(tenantId)) seals.set(tenantId, await getSeal(ctx.reads, tenantId));
      const seal = seals.get(tenantId);
      if (!seal) continue;
      const sealed = group.filter((e) => e.mmr_index < seal.mmr_size);
      // Each record's row, recomputed, must give its logged leaf: one read per kind for the step.
      const rows = await rowLeaves(ctx.reads, sealed);
      const batch = { key, tenantId, seal, entries: sealed, rows };
      const made =
        profile === "mmr" ? await mmrReceipts(ctx, batch) : await treeReceipts(ctx, batch, checkpoints);
      for (const [id, r] of made) out.set(id, r);
    }
  }
  return out;
}

type SealKey = Es256Key;

/** One log's entries that its latest seal covers, and the key their receipts are signed with. */
interface SealedBatch {
  key: SealKey;
  tenantId: string;
  seal: SealRow;
  entries: Entry[];
  /** What the entries' record rows recompute to. */
  rows: Map<string, RowLeaf>;
}

/**
 * Receipts kept under `receiptFor`'s keys (the kid included: after a rotation receipts are
 * signed anew by the current key), so a later single fetch answers the same bytes; signed
 * through the key's backend, which may be asynchronous (a KMS).
 */
async function kept(
  ctx: Pick<Ctx, "caches">,
  key: SealKey,
  cacheKey: string,
  build: (signer: Signer) => Uint8Array,
): Promise<Uint8Array> {
  const receipts = ctx.caches.receipts;
  const full = `${cacheKey}:${key.kid}`;
  const cached = receipts.get(full);
  if (cached) return cached;
  const receipt = await signedReceipt(ctx, key, build);
  if (receipts.size > RECEIPTS_KEPT) receipts.clear();
  receipts.set(full, receipt);
  return receipt;
}

async function mmrReceipts(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "reads" | "blobs" | "logGuard">,
  { key, tenantId, seal, entries, rows }: SealedBatch,
): Promise<Map<string, RecordReceipt>> {
  for (const e of entries) await leafOfRow(ctx.reads, ctx.logGuard.basis, "receipt", e, rows);
  const paths = entries.map((e) => inclusionProofIndices(seal.mmr_size, e.mmr_index));
  const nodes = await mmrNodesOf(readNodeSource(ctx), tenantId, [...new Set(paths.flat())]);
  const missing = missingRefused(ctx.logGuard.basis, "receipt", tenantId);
  const node = (i: number) => {
    const n = nodes.get(i);
    if (!n) throw missing(`log node ${i}`);
    return n;
  };
  const out = new Map<string, RecordReceipt>();
  for (const [i, e] of entries.entries()) {
    const path = (paths[i] as number[]).map(node);
    const peak = includedRoot(e.mmr_index, e.leaf, path);
    // The seal's signature is checked once (kept by the guard); each peak is then a comparison.
    await peakOfSeal(ctx.logGuard.basis, "receipt", seal, e, peak);
    const receipt = await kept(
      ctx,
      key,
      `${e.record_id}:mmr-map:${seal.mmr_size}`,
      mmrReceiptSigning(ctx, key, tenantId, e, { path, peak, form: "map" }),
    );
    out.set(e.record_id, { receipt, log: `tenant/${tenantId}`, mmrIndex: e.mmr_index, peak: hex(peak) });
  }
  return out;
}

async function treeReceipts(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "reads" | "blobs" | "logGuard">,
  { key, tenantId, entries, rows }: SealedBatch,
  checkpoints: Map<string, CheckpointRow | undefined>,
): Promise<Map<string, RecordReceipt>> {
  // The tree of the newest checkpoint, signed over its root (an entry it does not cover yet: 409 alone).
  if (!checkpoints.has(tenantId)) checkpoints.set(tenantId, await latestCheckpoint(ctx.reads, tenantId));
  const cp = checkpoints.get(tenantId);
  const out = new Map<string, RecordReceipt>();
  if (cp === undefined) return out;
  const covered = entries.filter((e) => e.leaf_index < cp.size);
  if (covered.length === 0) return out;
  const basis = ctx.logGuard.basis;
  const root = await basis.checkpointRoot("receipt_rfc9162", cp);
  // Neighbouring entries' proofs share most of their nodes: each is asked for once.
  const coords = new Map<string, tree.NodeCoord>();
  for (const c of covered.flatMap((e) => treeProof.inclusionProofNodes(e.leaf_index, cp.size)))
    coords.set(`${c.level}:${c.idx}`, c);
  const get = await treeNodes(
    readNodeSource(ctx),
    tenantId,
    [...coords.values()],
    missingRefused(basis, "receipt_rfc9162", tenantId),
  );
  for (const e of covered) {
    const hash = await leafOfRow(ctx.reads, basis, "receipt_rfc9162", e, rows);
    const path = treePathToSigned(basis, "receipt_rfc9162", cp, root, { index: e.leaf_index, hash }, get);
    const receipt = await kept(
      ctx,
      key,
      `${e.record_id}:rfc9162:${cp.size}`,
      treeReceiptSigning(ctx, key, tenantId, { treeSize: cp.size, leafIndex: e.leaf_index, path, root }),
    );
    out.set(e.record_id, { receipt, log: `tenant/${tenantId}`, treeSize: cp.size });
  }
  return out;
}
