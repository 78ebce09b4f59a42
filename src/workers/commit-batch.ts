import { randomBytes } from "node:crypto";
import { formatIdTimestamp, type IdTimestampGenerator } from "../core/log/idtimestamp.js";
import { appendLeaves, appendNodesNeeded, knownNode } from "../core/log/mmr-append.js";
import { nodeAsciiLeafSha256, nodeSha256 } from "../core/node/crypto.js";
import { idTimestampToMillis } from "../formats/ledger/idtimestamp.js";
import { tlogLeafData } from "../formats/ledger/tlog-leaf.js";
import { leafCount } from "../formats/mmr/indices.js";
import {
  assetEventRowLeafHash,
  assetFreeEventLeafHash,
  assetFreeExtraBytes,
} from "../formats/record/leaf.js";
import type { Queryable } from "../store/drivers/db.js";
import {
  type CommitWork,
  type EntryRow,
  loadLog,
  openCommitWork,
  readNodes,
  writeCommit,
} from "../store/ledger/ledger.js";
import type { IndexFacts } from "../store/ledger/vindex.js";
import { eventsByIds, type QueuedEvent, type StoredAssetEvent } from "../store/records/asset-events.js";
import type { UncommittedFreeEvent } from "../store/records/free-events.js";
import type { FreshEvents } from "../store/records/fresh-events.js";
import { type CommittedRecord, factsOfRecord } from "../vindex/fresh-facts.js";
import { type Frontier, frontierAfter, type LogFrontiers } from "./log-frontiers.js";
import { readTreeFrontier, treeNodesAfter } from "./tlog-append.js";

type Pending =
  | { kind: "asset_event"; at: number; row: StoredAssetEvent; seq: number }
  | { kind: "event"; at: number; row: UncommittedFreeEvent };

/**
 * The queued asset events' rows, each with its place in the queue: from this process's hand-off
 * when it has them, else from the database.
 */
async function storedAssetEvents(
  tx: Queryable,
  queued: QueuedEvent[],
  fresh: FreshEvents | undefined,
): Promise<Array<{ row: StoredAssetEvent; seq: number }>> {
  const rows = queued.map((q) => fresh?.take(q.id));
  const missing = queued.filter((_, i) => rows[i] === undefined).map((q) => q.id);
  if (missing.length > 0) {
    const byId = new Map((await eventsByIds(tx, missing)).map((r) => [r.id, r]));
    for (const [i, q] of queued.entries()) rows[i] ??= byId.get(q.id);
  }
  return queued.flatMap((q, i) => {
    const row = rows[i];
    return row ? [{ row, seq: q.seq }] : [];
  });
}

/**
 * The batch: the oldest of the tenancy's queued asset events and STORED asset-free events,
 * together in the order accepted, `limit` at most. What it leaves stays queued or STORED.
 */
async function pendingRecords(
  tx: Queryable,
  work: CommitWork,
  limit: number,
  fresh: FreshEvents | undefined,
): Promise<Pending[]> {
  const events = await storedAssetEvents(tx, work.queued, fresh);
  const all: Pending[] = [
    ...events.map(({ row, seq }) => ({
      kind: "asset_event" as const,
      at: row.timestamp_accepted.getTime(),
      row,
      seq,
    })),
    ...work.free.map((row) => ({ kind: "event" as const, at: row.created_at, row })),
  ];
  return all.sort((a, b) => a.at - b.at).slice(0, limit);
}

export interface CommitOptions {
  /** Whether the RFC 9162 tree takes the batch when it has caught up (default true; the `trees` bench compares). */
  tree?: boolean;
  /** The frontiers this process's last commits left: read instead of the log's nodes when still current. */
  frontiers?: LogFrontiers;
  /**
   * Whether the log at this size may take entries (`LogGuard.mayAppend`): not when it is behind
   * what was signed (an older backup restored under the running service), where new entries
   * would take positions the signed log holds for others. Its records stay STORED.
   */
  mayAppend?: (tx: Queryable, tenantId: string, mmrSize: number) => Promise<boolean>;
  /** Whether to return the batch's facts for the verifiable index (`CommitResult.facts`). */
  indexFacts?: boolean;
}

export interface CommitResult {
  count: number;
  assets: string[];
  /** Another transaction (a committer elsewhere, or a sealer) held the log's lock. */
  busy?: true;
  /** The log's frontier after this batch: for `LogFrontiers`, once the transaction has committed. */
  frontier?: Frontier;
  /** What the index's map function reads of each entry appended: for `FreshIndexFacts`, once committed. */
  facts?: IndexFacts[];
}

/** Commits one batch of a tenancy's STORED records to its log in one transaction; returns how many. */
export async function commitBatch(
  tx: Queryable,
  tenantId: string,
  gen: IdTimestampGenerator,
  limit: number,
  fresh?: FreshEvents,
  opts: CommitOptions = {},
): Promise<CommitResult> {
  const work = await openCommitWork(tx, tenantId, limit);
  if (!work) return { count: 0, assets: [], busy: true };
  const pending = await pendingRecords(tx, work, limit, fresh);
  if (pending.length === 0) return { count: 0, assets: [] };
  const log = work.log ?? (await loadLog(tx, tenantId));
  if (opts.mayAppend && !(await opts.mayAppend(tx, tenantId, log.mmr_size))) return { count: 0, assets: [] };
  const { leaves, entries } = leavesOf(pending, tenantId, gen);
  const known =
    opts.frontiers?.mmr(tenantId, log.mmr_size) ??
    (await readNodes(tx, tenantId, appendNodesNeeded(log.mmr_size)));
  const appended = appendLeaves(log.mmr_size, leaves, knownNode(known, tenantId), nodeSha256);
  const firstLeaf = leafCount(log.mmr_size);
  appended.leafIndices.forEach((mmrIndex, k) => {
    const e = entries[k] as EntryRow;
    e.mmr_index = mmrIndex;
    e.leaf_index = firstLeaf + k;
  });
  // One sequence, two commitments: the RFC 9162 tree takes the same entries in the same
  // transaction, unless it is still behind the MMR (the backfill appends those, in order).
  const takesTree = opts.tree !== false && log.tree_size === firstLeaf;
  const treeKnown = takesTree
    ? (opts.frontiers?.tree(tenantId, log.tree_size) ?? (await readTreeFrontier(tx, tenantId, log.tree_size)))
    : new Map<string, Uint8Array>();
  const treeNodes = takesTree
    ? treeNodesAfter(
        tenantId,
        log.tree_size,
        pending.map((p, k) =>
          tlogLeafData(
            { mmrLeaf: leaves[k] as Uint8Array, statementPayload: statementPayload(p) },
            nodeSha256,
          ),
        ),
        treeKnown,
      )
    : [];
  const treeSize = takesTree ? log.tree_size + pending.length : undefined;
  const lastIndex = newestByAsset(pending, entries);
  // Asset-free events are marked on their rows; asset events are not rewritten (their log entries
  // say it, and each asset's newest entry goes to its own table, so the committer never takes the
  // asset rows' lock that event writers share).
  await writeCommit(tx, {
    tenantId,
    firstNodeIndex: log.mmr_size,
    nodes: appended.nodes,
    entries,
    freeEntries: entries.filter((e) => e.kind === "event"),
    treeNodes,
    mmrSize: appended.newSize,
    lastIdtimestamp: (entries.at(-1) as EntryRow).idtimestamp,
    treeSize,
    lastIndexByAsset: lastIndex,
    queueSeqs: pending.flatMap((p) => (p.kind === "asset_event" ? [p.seq] : [])),
    freeQueueSeqs: pending.flatMap((p) => (p.kind === "event" ? [p.row.seq] : [])),
  });
  // A tree that did not take the batch keeps its size, which the next commit reads again.
  const frontier =
    treeSize === undefined
      ? undefined
      : frontierAfter(
          { size: appended.newSize, before: known, firstNew: log.mmr_size, added: appended.nodes },
          { size: treeSize, before: treeKnown, added: treeNodes },
        );
  return {
    count: pending.length,
    assets: [...lastIndex.keys()],
    ...(frontier ? { frontier } : {}),
    ...(opts.indexFacts
      ? { facts: pending.map((p, k) => factsOfRecord(committedRecord(p), firstLeaf + k)) }
      : {}),
  };
}

/** A pending record as the index's map function reads it: the attributes its leaf signs. */
function committedRecord(p: Pending): CommittedRecord {
  return p.kind === "asset_event"
    ? { kind: "asset_event", asset_id: p.row.asset_id, attributes: p.row.event_attributes }
    : { kind: "event", attributes: p.row.attributes };
}

/**
 * Each pending record's leaf and log entry, its idtimestamp taken now from `gen`; the entries'
 * positions are filled in once the leaves are appended.
 */
function leavesOf(
  pending: readonly Pending[],
  tenantId: string,
  gen: IdTimestampGenerator,
): { leaves: Uint8Array[]; entries: EntryRow[] } {
  const extra = assetFreeExtraBytes(tenantId);
  const entries: EntryRow[] = [];
  const leaves = pending.map((p) => {
    const id = gen.next();
    const at = new Date(idTimestampToMillis(id));
    const leaf =
      p.kind === "asset_event"
        ? assetEventRowLeafHash(p.row, at, id, nodeSha256, nodeAsciiLeafSha256)
        : // The leaf reads the record model's hashed fields of the row (FREE_EVENT_HASHED_FIELDS).
          assetFreeEventLeafHash(p.row, id, extra, "eventsv1", nodeSha256);
    entries.push({
      mmr_index: 0,
      leaf_index: 0,
      kind: p.kind,
      record_id: p.row.id,
      idtimestamp: formatIdTimestamp(id, 1),
      leaf,
    });
    return leaf;
  });
  return { leaves, entries };
}

/** Each asset's newest log entry (its MMR index) in the batch, for the asset's own table. */
function newestByAsset(pending: readonly Pending[], entries: readonly EntryRow[]): Map<string, number> {
  const lastIndex = new Map<string, number>();
  for (const [k, p] of pending.entries())
    if (p.kind === "asset_event") lastIndex.set(p.row.asset_id, (entries[k] as EntryRow).mmr_index);
  return lastIndex;
}

/** The payload a registered statement's event recorded (hex), as bytes. */
function statementPayload(p: Pending): Uint8Array | undefined {
  if (p.kind !== "event" || !p.row.registered) return undefined;
  const hex = p.row.attributes.payload;
  return typeof hex === "string" ? new Uint8Array(Buffer.from(hex, "hex")) : undefined;
}

/** A random worker id for this process's idtimestamps (unique per log holder; the lock makes one writer). */
export function workerId(): number {
  return randomBytes(2).readUInt16BE(0) & 0xff;
}
