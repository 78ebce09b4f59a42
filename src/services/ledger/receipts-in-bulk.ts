import type { Ctx } from "../../context.js";
import type { Signer } from "../../core/log/sign1.js";
import * as treeProof from "../../core/log/tree-proof.js";
import { type Es256Key, signedWith } from "../../store/keyring.js";
import { type EntryRow, entriesOfRecords } from "../../store/ledger.js";
import { mmrNodesOf } from "../../store/period-archive.js";
import { getSeal, type SealRow } from "../../store/seals.js";
import { tlogSize } from "../../store/tlog-nodes.js";
import {
  ApiError,
  includedRoot,
  inclusionProofIndices,
  leafCount,
  rfc9162 as tree,
} from "../../verify/primitives.js";
import { readNodeSource } from "./node-source.js";
import { type Profile, treeNodes } from "./proofs.js";
import { mmrReceiptSigning, treeReceiptSigning } from "./receipt-signing.js";

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
  ctx: Pick<Ctx, "baseUrl" | "caches" | "reads" | "blobs" | "keys">,
  recordIds: string[],
  profile: Profile,
): Promise<Map<string, RecordReceipt>> {
  const out = new Map<string, RecordReceipt>();
  const seals = new Map<string, SealRow | undefined>();
  const treeSizes = new Map<string, number | undefined>();
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
      const batch = { key, tenantId, seal, entries: sealed };
      const made =
        profile === "mmr" ? await mmrReceipts(ctx, batch) : await treeReceipts(ctx, batch, treeSizes);
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
  const receipt = await signedWith(key, build);
  if (receipts.size > RECEIPTS_KEPT) receipts.clear();
  receipts.set(full, receipt);
  return receipt;
}

async function mmrReceipts(
  ctx: Pick<Ctx, "baseUrl" | "caches" | "reads" | "blobs">,
  { key, tenantId, seal, entries }: SealedBatch,
): Promise<Map<string, RecordReceipt>> {
  const paths = entries.map((e) => inclusionProofIndices(seal.mmr_size, e.mmr_index));
  const nodes = await mmrNodesOf(readNodeSource(ctx), tenantId, [...new Set(paths.flat())]);
  const node = (i: number) => {
    const n = nodes.get(i);
    if (!n) throw new ApiError("internal", `log node ${i} is missing`);
    return n;
  };
  const out = new Map<string, RecordReceipt>();
  for (const [i, e] of entries.entries()) {
    const path = (paths[i] as number[]).map(node);
    const peak = includedRoot(e.mmr_index, e.leaf, path);
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
  ctx: Pick<Ctx, "baseUrl" | "caches" | "reads" | "blobs">,
  { key, tenantId, seal, entries }: SealedBatch,
  treeSizes: Map<string, number | undefined>,
): Promise<Map<string, RecordReceipt>> {
  // The tree of the entries the seal covers, once the backfill has built it (409 alone before).
  if (!treeSizes.has(tenantId)) {
    const size = leafCount(seal.mmr_size);
    treeSizes.set(tenantId, (await tlogSize(ctx.reads, tenantId)) < size ? undefined : size);
  }
  const size = treeSizes.get(tenantId);
  const out = new Map<string, RecordReceipt>();
  if (size === undefined) return out;
  // Neighbouring entries' proofs share most of their nodes: each is asked for once.
  const coords = new Map<string, tree.NodeCoord>();
  for (const c of [
    ...entries.flatMap((e) => treeProof.inclusionProofNodes(e.leaf_index, size)),
    ...treeProof.rootNodes(size),
  ])
    coords.set(`${c.level}:${c.idx}`, c);
  const get = await treeNodes(readNodeSource(ctx), tenantId, [...coords.values()]);
  const root = tree.treeRoot(size, get);
  for (const e of entries) {
    const receipt = await kept(
      ctx,
      key,
      `${e.record_id}:rfc9162:${seal.mmr_size}`,
      treeReceiptSigning(ctx, key, tenantId, {
        treeSize: size,
        leafIndex: e.leaf_index,
        path: tree.inclusionProof(e.leaf_index, size, get),
        root,
      }),
    );
    out.set(e.record_id, { receipt, log: `tenant/${tenantId}`, treeSize: size });
  }
  return out;
}
