import type { NewNode } from "../../core/log/tree-append.js";
import type { Queryable } from "../drivers/db.js";
import { hashesParam, plainArrayParam } from "../query/bulk-params.js";
import type { QueuedEvent } from "../records/asset-events.js";
import type { UncommittedFreeEvent } from "../records/free-events.js";

export interface LogRow {
  tenant_id: string;
  mmr_size: number;
  last_idtimestamp: string;
  sealed_size: number;
  /** Entries the RFC 9162 tree holds (fewer than the MMR's leaves until the backfill has run). */
  tree_size: number;
}

/** Takes the log's single-writer lock for this transaction; false when another process holds it. */
export async function tryLockLog(tx: Queryable, tenantId: string): Promise<boolean> {
  const rows = await tx.query<{ ok: boolean }>(
    "select pg_try_advisory_xact_lock(hashtextextended($1, 7245)) as ok",
    [`log:${tenantId}`],
  );
  return rows[0]?.ok === true;
}

/** What a commit batch starts from, read under the log's lock (`openCommitWork`). */
export interface CommitWork {
  /** Up to the limit of the oldest queued asset events, locked, in queue order. */
  queued: QueuedEvent[];
  /** Up to the limit of the oldest queued (STORED) asset-free events, locked, in the order stored. */
  free: UncommittedFreeEvent[];
  /** The log's state; undefined for a log never written (`loadLog` creates it). */
  log: LogRow | undefined;
}

/**
 * Takes the log's single-writer lock for this transaction and reads what a commit batch starts
 * from, in one statement: the queued asset events and the queued asset-free events (both
 * locked, `limit` of each at most) and the log's state. Undefined when another transaction holds
 * the lock. It was four statements, each a round trip and, on PGlite, ~0.12 ms of the service's
 * thread. The lock is a materialised CTE that every other part reads first (a one-time filter),
 * so nothing is read or locked before it is held. Queued events leave the queue only with the
 * commit that writes their log entries (`writeCommit`). The asset-free rows are fetched by their
 * keys from the queue's head (migration 052): asked by status, the planner could walk the
 * committed rows.
 */
export async function openCommitWork(
  tx: Queryable,
  tenantId: string,
  limit: number,
): Promise<CommitWork | undefined> {
  const rows = await tx.query<{
    locked: boolean;
    queued: Array<{ id: string; seq: number | string }> | null;
    free: Array<UncommittedFreeEvent & { created_at: number | string; seq: number | string }> | null;
    log: LogRow | null;
  }>(
    `with lock as materialized (select pg_try_advisory_xact_lock(hashtextextended($1, 7245)) as ok),
     queued as (
       select id, seq from asset_event_queue where tenant_id = $2 and (select ok from lock)
       order by seq limit $3 for update),
     free as (
       select seq, id, attributes, trails, event_type, created_at, statement is not null as registered from events
       where tenant_id = $2 and id = any(array(
         select id from event_queue where tenant_id = $2 and (select ok from lock) order by seq limit $3))
       for update)
     select (select ok from lock) as locked,
       (select json_agg(json_build_object('id', id, 'seq', seq) order by seq) from queued) as queued,
       (select json_agg(json_build_object('seq', seq, 'id', id, 'attributes', attributes, 'trails', trails, 'event_type', event_type,
          'created_at', created_at, 'registered', registered) order by seq) from free) as free,
       (select json_build_object('tenant_id', tenant_id, 'mmr_size', mmr_size, 'last_idtimestamp', last_idtimestamp,
          'sealed_size', sealed_size, 'tree_size', tree_size)
        from logs where tenant_id = $2 and (select ok from lock)) as log`,
    [`log:${tenantId}`, tenantId, limit],
    { reusePlan: true },
  );
  const r = rows[0];
  if (r?.locked !== true) return undefined;
  return {
    queued: (r.queued ?? []).map((q) => ({ id: q.id, seq: Number(q.seq) })),
    free: (r.free ?? []).map((f) => ({ ...f, created_at: Number(f.created_at), seq: Number(f.seq) })),
    log: r.log ? logRow(r.log) : undefined,
  };
}

/** A log row with its sizes as numbers (int8 columns come back as strings). */
function logRow(r: LogRow): LogRow {
  return {
    ...r,
    mmr_size: Number(r.mmr_size),
    sealed_size: Number(r.sealed_size),
    tree_size: Number(r.tree_size),
  };
}

/**
 * Waits for the log's lock (held to the end of the transaction). For the sealer: under load
 * the committer holds the lock almost all the time, and a sealer that only tried it would
 * skip most of its ticks, leaving records COMMITTED for many seconds.
 */
export async function lockLog(tx: Queryable, tenantId: string): Promise<void> {
  await tx.query("select pg_advisory_xact_lock(hashtextextended($1, 7245))", [`log:${tenantId}`]);
}

/** The log's size, 0 for a log never written; reads only (a GET must never create the row). */
export async function logSize(db: Queryable, tenantId: string): Promise<number> {
  const rows = await db.query<{ mmr_size: string | number }>(
    "select mmr_size from logs where tenant_id = $1",
    [tenantId],
  );
  return Number(rows[0]?.mmr_size ?? 0);
}

/** The log's state, created empty on first use. */
export async function loadLog(tx: Queryable, tenantId: string): Promise<LogRow> {
  const select = () =>
    tx.query<LogRow>(
      "select tenant_id, mmr_size, last_idtimestamp, sealed_size, tree_size from logs where tenant_id = $1",
      [tenantId],
    );
  // Read first and create only when missing: every commit batch loads its log, and a statement
  // is a round trip whose socket write is much of a batch's cost (docs/performance.md).
  let rows = await select();
  if (rows.length === 0) {
    await tx.query("insert into logs (tenant_id) values ($1) on conflict do nothing", [tenantId]);
    rows = await select();
  }
  return logRow(rows[0] as LogRow);
}

/** Node hashes at the given indices. */
export async function readNodes(
  db: Queryable,
  tenantId: string,
  indices: number[],
): Promise<Map<number, Uint8Array>> {
  if (indices.length === 0) return new Map();
  const rows = await db.query<{ idx: number; hash: Uint8Array }>(
    "select idx, hash from mmr_nodes where tenant_id = $1 and idx = any($2::bigint[])",
    [tenantId, indices],
  );
  return new Map(rows.map((r) => [Number(r.idx), new Uint8Array(r.hash)]));
}

export interface EntryRow {
  mmr_index: number;
  leaf_index: number;
  /** `period`: a log period's link entry (its leaf commits the closed period, docs/scaling.md). */
  kind: "asset_event" | "event" | "period";
  record_id: string;
  idtimestamp: string;
  leaf: Uint8Array;
}

/** Everything one commit batch writes, as `writeCommit` takes it. */
export interface CommitWrite {
  tenantId: string;
  /** The log's MMR size before the batch: the index of the first new node. */
  firstNodeIndex: number;
  nodes: Uint8Array[];
  entries: EntryRow[];
  /** The asset-free events among `entries`, marked COMMITTED on their rows. */
  freeEntries: ReadonlyArray<Pick<EntryRow, "record_id" | "mmr_index" | "idtimestamp" | "leaf">>;
  /** The RFC 9162 tree's new perfect subtrees (none when the tree did not take the batch). */
  treeNodes: NewNode[];
  mmrSize: number;
  lastIdtimestamp: string;
  /** The tree's new size when it took the batch; otherwise it keeps its own. */
  treeSize?: number | undefined;
  /** Each asset's highest log index in the batch (the lowest status of its events follows it). */
  lastIndexByAsset: ReadonlyMap<string, number>;
  /** The commit queue's places (`seq`) of the batch's asset events: they leave the queue with it. */
  queueSeqs: number[];
  /** The same of the batch's asset-free events, in theirs. */
  freeQueueSeqs: number[];
}

/**
 * Writes a commit batch in one statement: the MMR's new nodes, the log entries, the asset events'
 * departure from the commit queue, the asset-free events' COMMITTED marks, the RFC 9162 tree's
 * new subtrees, the assets' log heads and the log's head. It was six statements, each a round
 * trip to the database and a plan in it; with `openCommitWork` and the frontier kept by
 * `LogFrontiers`, a batch runs four (begin, that read, this write, commit) where it ran fourteen.
 * PostgreSQL runs every data-modifying `with` exactly once, and an empty array inserts nothing,
 * so one text serves every batch and its plan is made once per connection. Each column's values
 * go as one parameter (`bulk-params.ts`): the hashes as one binary buffer the statement slices,
 * the rest as array literals; node-postgres' writing of arrays element by element, every hash
 * as quoted hex, was ~4 % of a profile's samples under ingest (`pair`: 2.5 % less CPU an event).
 */
export async function writeCommit(tx: Queryable, c: CommitWrite): Promise<void> {
  const heads = [...c.lastIndexByAsset];
  await tx.query(
    `with nodes as (
       insert into mmr_nodes (tenant_id, idx, hash)
       select $1, $2::bigint + i, substring($3::bytea from i * 32 + 1 for 32)
       from generate_series(0, length($3::bytea) / 32 - 1) as i),
     entries as (
       insert into log_entries (tenant_id, mmr_index, leaf_index, kind, record_id, idtimestamp, leaf)
       select $1, m, l, k, r, t, substring($9::bytea from (o::int - 1) * 32 + 1 for 32)
       from unnest($4::bigint[], $5::bigint[], $6::text[], $7::uuid[], $8::text[]) with ordinality as e(m, l, k, r, t, o)),
     free as (
       update events e set confirmation_status = 'COMMITTED', mmr_index = v.idx, idtimestamp = v.idt, content_hash = v.h
       from unnest($10::uuid[], $11::bigint[], $12::text[], $13::text[]) as v(id, idx, idt, h) where e.id = v.id),
     tree as (
       insert into tlog_nodes (tenant_id, level, idx, hash)
       select $1, l, x, substring($16::bytea from (o::int - 1) * 32 + 1 for 32)
       from unnest($14::smallint[], $15::bigint[]) with ordinality as n(l, x, o)),
     heads as (
       insert into asset_log_heads (asset_id, last_mmr_index) select * from unnest($17::uuid[], $18::bigint[])
       on conflict (asset_id) do update set last_mmr_index = greatest(asset_log_heads.last_mmr_index, excluded.last_mmr_index)),
     dequeued as (
       delete from asset_event_queue where tenant_id = $1 and seq = any($22::bigint[])),
     dequeued_free as (
       delete from event_queue where tenant_id = $1 and seq = any($23::bigint[]))
     update logs set mmr_size = $19, last_idtimestamp = $20, tree_size = coalesce($21::bigint, tree_size) where tenant_id = $1`,
    [
      c.tenantId,
      c.firstNodeIndex,
      hashesParam(c.nodes),
      plainArrayParam(c.entries.map((e) => e.mmr_index)),
      plainArrayParam(c.entries.map((e) => e.leaf_index)),
      plainArrayParam(c.entries.map((e) => e.kind)),
      plainArrayParam(c.entries.map((e) => e.record_id)),
      plainArrayParam(c.entries.map((e) => e.idtimestamp)),
      hashesParam(c.entries.map((e) => e.leaf)),
      plainArrayParam(c.freeEntries.map((e) => e.record_id)),
      plainArrayParam(c.freeEntries.map((e) => e.mmr_index)),
      plainArrayParam(c.freeEntries.map((e) => e.idtimestamp)),
      plainArrayParam(c.freeEntries.map((e) => Buffer.from(e.leaf).toString("hex"))),
      plainArrayParam(c.treeNodes.map((n) => n.level)),
      plainArrayParam(c.treeNodes.map((n) => n.idx)),
      hashesParam(c.treeNodes.map((n) => n.hash)),
      plainArrayParam(heads.map(([asset]) => asset)),
      plainArrayParam(heads.map(([, index]) => index)),
      c.mmrSize,
      c.lastIdtimestamp,
      c.treeSize ?? null,
      plainArrayParam(c.queueSeqs),
      plainArrayParam(c.freeQueueSeqs),
    ],
    { reusePlan: true },
  );
}

/** The log entry of a record, if it has been committed. */
// int8 and bytea come back as strings/Buffers depending on the driver.
function normEntry<T extends EntryRow>(r: T): T {
  return {
    ...r,
    mmr_index: Number(r.mmr_index),
    leaf_index: Number(r.leaf_index),
    leaf: new Uint8Array(r.leaf),
  };
}

export async function entryOfRecord(
  db: Queryable,
  recordId: string,
): Promise<(EntryRow & { tenant_id: string }) | undefined> {
  const rows = await db.query<EntryRow & { tenant_id: string }>(
    "select tenant_id, mmr_index, leaf_index, kind, record_id, idtimestamp, leaf from log_entries where record_id = $1",
    [recordId],
  );
  return rows[0] && normEntry(rows[0]);
}

/** The log entries of many records at once (the evidence route's receipts), by record id; absent: not committed. */
export async function entriesOfRecords(
  db: Queryable,
  recordIds: string[],
): Promise<Map<string, EntryRow & { tenant_id: string }>> {
  if (recordIds.length === 0) return new Map();
  const rows = await db.query<EntryRow & { tenant_id: string }>(
    "select tenant_id, mmr_index, leaf_index, kind, record_id, idtimestamp, leaf from log_entries where record_id = any($1::uuid[])",
    [recordIds],
  );
  return new Map(rows.map((r) => [r.record_id, normEntry(r)]));
}

export async function entryAt(
  db: Queryable,
  tenantId: string,
  mmrIndex: number,
): Promise<EntryRow | undefined> {
  const rows = await db.query<EntryRow>(
    "select mmr_index, leaf_index, kind, record_id, idtimestamp, leaf from log_entries where tenant_id = $1 and mmr_index = $2",
    [tenantId, mmrIndex],
  );
  return rows[0] && normEntry(rows[0]);
}

/**
 * Tenancies with records waiting to be committed (work discovered from the database, not the
 * hand-off): one probe per tenancy that stops at its first waiting record (the asset events' and
 * the asset-free events' commit queues). A distinct over every waiting row (or an
 * `exists`, which PostgreSQL hashes into the same) bitmap-scanned the index whole, dead entries
 * of committed rows included until a vacuum: 4–13 ms a sweep under load, four sweeps a second. A
 * plain index scan stops at the first live row and marks the dead ones it passes.
 */
export async function tenantsWithStoredRecords(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ tenant_id: string }>(
    `select t.id as tenant_id from tenancies t
     where (select true from asset_event_queue q where q.tenant_id = t.id order by q.seq limit 1)
        or (select true from event_queue f where f.tenant_id = t.id order by f.seq limit 1)`,
  );
  return rows.map((r) => r.tenant_id);
}
