import { randomBytes } from "node:crypto";
import {
  formatIdTimestamp,
  type IdTimestampGenerator,
  idTimestampToMillis,
} from "../core/ledger/idtimestamp.js";
import { tlogLeafData } from "../core/ledger/tlog-leaf.js";
import { appendLeaves, appendNodesNeeded, leafCount } from "../core/mmr/index.js";
import {
  assetEventLeafHash,
  assetEventRecord,
  assetFreeEventLeafHash,
  assetFreeExtraBytes,
} from "../core/record/index.js";
import { EVENT_COLUMNS, readEvents, type StoredAssetEvent } from "../store/asset-events.js";
import { noteCommitted } from "../store/assets.js";
import type { Queryable } from "../store/db.js";
import type { FreshEvents } from "../store/fresh-events.js";
import {
  type EntryRow,
  insertEntries,
  insertNodes,
  loadLog,
  readNodes,
  saveLogHead,
  tryLockLog,
} from "../store/ledger.js";
import { appendToTree } from "./tlog-append.js";

interface FreeEventRow {
  id: string;
  attributes: Record<string, unknown>;
  trails: string[];
  event_type: string;
  created_at: number;
  /** A registered signed statement's event (its RFC 9162 leaf is made from the payload). */
  registered: boolean;
}

type Pending =
  | { kind: "asset_event"; at: number; row: StoredAssetEvent }
  | { kind: "event"; at: number; row: FreeEventRow };

/**
 * The tenancy's oldest queued asset events, taken off the commit queue (the transaction that
 * writes their log entries deletes their queue rows). Only ids are read from the queue; the
 * rows come from this process's hand-off when it has them, else from the database.
 */
async function storedAssetEvents(
  tx: Queryable,
  tenantId: string,
  limit: number,
  fresh: FreshEvents | undefined,
): Promise<StoredAssetEvent[]> {
  const taken = await tx.query<{ id: string; seq: number | string }>(
    `delete from asset_event_queue q using
       (select seq from asset_event_queue where tenant_id = $1 order by seq limit $2 for update) w
     where q.tenant_id = $1 and q.seq = w.seq returning q.id, q.seq`,
    [tenantId, limit],
  );
  const locked = taken.sort((a, b) => Number(a.seq) - Number(b.seq));
  const rows = locked.map((l) => fresh?.take(l.id));
  const missing = locked.filter((_, i) => rows[i] === undefined).map((l) => l.id);
  if (missing.length > 0) {
    const read = await readEvents<StoredAssetEvent>(
      tx,
      `select ${EVENT_COLUMNS} from asset_events where id = any($1::uuid[])`,
      [missing],
    );
    const byId = new Map(read.map((r) => [r.id, r]));
    for (const [i, l] of locked.entries()) rows[i] ??= byId.get(l.id);
  }
  return rows.filter((r): r is StoredAssetEvent => r !== undefined);
}

async function pendingRecords(
  tx: Queryable,
  tenantId: string,
  limit: number,
  fresh: FreshEvents | undefined,
): Promise<Pending[]> {
  const events = await storedAssetEvents(tx, tenantId, limit, fresh);
  const free = await tx.query<FreeEventRow>(
    `select id, attributes, trails, event_type, created_at, statement is not null as registered from events
     where tenant_id = $1 and confirmation_status = 'STORED' order by seq limit $2 for update`,
    [tenantId, limit],
  );
  const all: Pending[] = [
    ...events.map((row) => ({ kind: "asset_event" as const, at: row.timestamp_accepted.getTime(), row })),
    ...free.map((row) => ({
      kind: "event" as const,
      at: Number(row.created_at),
      row: { ...row, created_at: Number(row.created_at) },
    })),
  ];
  return all.sort((a, b) => a.at - b.at).slice(0, limit);
}

/**
 * Commits one batch of a tenancy's STORED records to its log in one transaction; returns how
 * many. `busy`: another transaction (a committer elsewhere, or a sealer) held the log's lock.
 */
export async function commitBatch(
  tx: Queryable,
  tenantId: string,
  gen: IdTimestampGenerator,
  limit: number,
  fresh?: FreshEvents,
  opts: { tree: boolean } = { tree: true },
): Promise<{ count: number; assets: string[]; busy?: true }> {
  if (!(await tryLockLog(tx, tenantId))) return { count: 0, assets: [], busy: true };
  const pending = await pendingRecords(tx, tenantId, limit, fresh);
  if (pending.length === 0) return { count: 0, assets: [] };
  const log = await loadLog(tx, tenantId);
  const extra = assetFreeExtraBytes(tenantId);
  const entries: EntryRow[] = [];
  const leaves = pending.map((p) => {
    const id = gen.next();
    const at = new Date(idTimestampToMillis(id));
    const leaf =
      p.kind === "asset_event"
        ? assetEventLeafHash(assetEventRecord({ ...p.row, timestamp_committed: at }), id)
        : assetFreeEventLeafHash(
            { attributes: p.row.attributes, trails: p.row.trails, event_type: p.row.event_type },
            id,
            extra,
          );
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
  const known = await readNodes(tx, tenantId, appendNodesNeeded(log.mmr_size));
  const appended = appendLeaves(log.mmr_size, leaves, (i) => {
    const n = known.get(i);
    if (!n) throw new Error(`log ${tenantId} is missing node ${i}`);
    return n;
  });
  const firstLeaf = leafCount(log.mmr_size);
  appended.leafIndices.forEach((mmrIndex, k) => {
    const e = entries[k] as EntryRow;
    e.mmr_index = mmrIndex;
    e.leaf_index = firstLeaf + k;
  });
  await insertNodes(tx, tenantId, log.mmr_size, appended.nodes);
  await insertEntries(tx, tenantId, entries);
  await markCommitted(tx, entries);
  // One sequence, two commitments: the RFC 9162 tree takes the same entries in the same
  // transaction, unless it is still behind the MMR (the backfill appends those, in order).
  const treeSize =
    opts.tree && log.tree_size === firstLeaf
      ? await appendToTree(
          tx,
          tenantId,
          log.tree_size,
          pending.map((p, k) =>
            tlogLeafData({ mmrLeaf: leaves[k] as Uint8Array, statementPayload: statementPayload(p) }),
          ),
        )
      : undefined;
  await saveLogHead(tx, tenantId, appended.newSize, (entries.at(-1) as EntryRow).idtimestamp, treeSize);
  const lastIndex = new Map<string, number>();
  for (const [k, p] of pending.entries())
    if (p.kind === "asset_event") lastIndex.set(p.row.asset_id, (entries[k] as EntryRow).mmr_index);
  await noteCommitted(tx, lastIndex);
  return { count: pending.length, assets: [...lastIndex.keys()] };
}

/** The payload a registered statement's event recorded (hex), as bytes. */
function statementPayload(p: Pending): Uint8Array | undefined {
  if (p.kind !== "event" || !p.row.registered) return undefined;
  const hex = p.row.attributes.payload;
  return typeof hex === "string" ? new Uint8Array(Buffer.from(hex, "hex")) : undefined;
}

/** Asset-free events are marked on their rows; asset events are not rewritten (their log entries say it). */
async function markCommitted(tx: Queryable, entries: EntryRow[]): Promise<void> {
  const free = entries.filter((e) => e.kind === "event");
  if (free.length === 0) return;
  await tx.query(
    `update events e set confirmation_status = 'COMMITTED', mmr_index = v.idx, idtimestamp = v.idt, content_hash = v.h
     from unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[]) as v(id, idx, idt, h) where e.id = v.id`,
    [
      free.map((e) => e.record_id),
      free.map((e) => e.mmr_index),
      free.map((e) => e.idtimestamp),
      free.map((e) => Buffer.from(e.leaf).toString("hex")),
    ],
  );
}

/** A random worker id for this process's idtimestamps (unique per log holder; the lock makes one writer). */
export function workerId(): number {
  return randomBytes(2).readUInt16BE(0) & 0xff;
}
