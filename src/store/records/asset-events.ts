import { idTimestampToMillis, parseIdTimestamp } from "../../formats/ledger/idtimestamp.js";
import type { CoveringSeal } from "../../formats/ledger/trust.js";
import type { AssetEventSource } from "../../formats/record/asset-event.js";
import type { RecordPrincipal } from "../../formats/record/fields.js";
import type { Queryable } from "../drivers/db.js";
import { withErasables } from "./erasable-values.js";
import { coveringSealRoot } from "./seal-roots.js";

/** A principal as records carry it (declared or accepted). */
export type Principal4 = RecordPrincipal;

/** A stored asset event: what the record mapper reads, plus what only the store and the write path use. */
export interface AssetEventRow extends AssetEventSource {
  seq: number;
  public: boolean;
}

/**
 * The event's own log entry (`l`): one probe of the log entries by record. The tenancy is named
 * too, so that with the log's tables partitioned (`archivist partition`) the probe reads the
 * tenancy's partition alone, not every partition's index.
 */
const OWN_LOG_ENTRY =
  "from log_entries l where l.record_id = asset_events.id and l.tenant_id = asset_events.tenant_id and l.kind = 'asset_event' and asset_events.proof_mechanism = 'MERKLE_LOG' limit 1";

/** `what` of the first seal (`s`) covering the log entry `l`. */
const coveringSeal = (what: string) =>
  `(select ${what} from seals s where s.tenant_id = l.tenant_id and s.mmr_size > l.mmr_index order by s.mmr_size limit 1)`;

/**
 * A MERKLE_LOG event's place in its log and the first seal covering it, as JSON. The committer
 * no longer writes the event row (a rewrite re-entered every index of it, the GIN ones too): the
 * log entry says where and when it was committed.
 */
const LOG_ENTRY_SQL = `(select jsonb_build_object('mmr_index', l.mmr_index, 'idtimestamp', l.idtimestamp, 'seal', ${coveringSeal(
  "jsonb_build_object('mmr_size', s.mmr_size, 'timestamp_ms', s.timestamp_ms, 'idtimestamp', s.idtimestamp, 'peaks', s.peaks, " +
    "'anchored_block', s.anchored_block, 'anchor_block_hash', s.anchor_block_hash, 'anchor_tx_hash', s.anchor_tx_hash, 'anchor_tx_index', s.anchor_tx_index, " +
    "'witnessed', s.witnessed)",
)}) ${OWN_LOG_ENTRY})`;

/**
 * An event's status as read: a MERKLE_LOG event is STORED until its log entry exists, then
 * COMMITTED, CONFIRMED once a seal covers the entry and UNEQUIVOCAL once that seal is anchored
 * and, with witnesses configured, a witness quorum has cosigned a checkpoint covering it
 * (no worker rewrites the row); otherwise the status stored on the row.
 */
export const EVENT_STATUS_SQL = `coalesce((select coalesce(${coveringSeal(
  "case when s.anchored_block is null or not s.witnessed then 'CONFIRMED' else 'UNEQUIVOCAL' end",
)}, 'COMMITTED') ${OWN_LOG_ENTRY}), asset_events.confirmation_status)`;

// Statements using these name the table `asset_events` (no alias): the log probe refers to it.
// Rows read with them go through `withLogEntry` (`readEvents`).
const EVENT_COLUMNS =
  "seq, id, asset_id, tenant_id, operation, behaviour, event_attributes, asset_attributes, timestamp_declared, timestamp_accepted, " +
  "timestamp_committed, principal_declared, principal_accepted, confirmation_status, proof_mechanism, public, mmr_index, idtimestamp, " +
  `merklelog_entry, transaction_id, block_number, transaction_index, from_address, ${LOG_ENTRY_SQL} as log_entry`;

interface LogEntryJson {
  mmr_index: number;
  idtimestamp: string;
  seal: CoveringSeal | null;
}

/**
 * A row read with EVENT_COLUMNS as an event: its commit fields from its log entry. Rows that an
 * earlier version committed by rewriting them keep what they say (the same values).
 */
function withLogEntry<T extends StoredAssetEvent>(row: T & { log_entry?: unknown }): T {
  const entry = (row.log_entry ?? null) as LogEntryJson | null;
  delete row.log_entry;
  row.covering_seal = entry?.seal ?? null;
  // The root the record's `confirm` shows, hashed on node:crypto once per seal read (every record read needs it).
  if (row.covering_seal)
    row.covering_seal.root = coveringSealRoot(row.covering_seal.mmr_size, row.covering_seal.peaks);
  if (entry && row.mmr_index === null) {
    row.mmr_index = Number(entry.mmr_index);
    row.idtimestamp = entry.idtimestamp;
    const { id, epoch } = parseIdTimestamp(entry.idtimestamp);
    row.timestamp_committed = new Date(idTimestampToMillis(id, epoch));
  }
  return row;
}

/** Runs a select of EVENT_COLUMNS and returns its rows as events. */
async function readEvents<T extends StoredAssetEvent = AssetEventRow>(
  db: Queryable,
  sql: string,
  params: unknown[],
  opts?: { reusePlan?: boolean },
): Promise<T[]> {
  const rows = await db.query<T & { log_entry?: unknown }>(sql, params, opts);
  return rows.map((r) => withLogEntry<T>(r));
}

/** An event as stored, without its place in the table (`seq` is only used for paging). */
export type StoredAssetEvent = Omit<AssetEventRow, "seq">;

/**
 * One event of an asset. Read as its record (`erasables`), with the values or erasures of its
 * erasable attributes joined; otherwise (its access, its leaf, its statement) without them.
 */
export async function getAssetEvent(
  db: Queryable,
  assetId: string,
  id: string,
  opts?: { erasables: true },
): Promise<AssetEventRow | undefined> {
  const rows = await readEvents(
    db,
    `select ${EVENT_COLUMNS} from asset_events where asset_id = $1 and id = $2`,
    [assetId, id],
  );
  return (opts?.erasables ? await withErasables(db, rows) : rows)[0];
}

/**
 * What never changes about a stored asset event and decides who may read it (events are never
 * rewritten; `public` is the asset's, fixed when the asset is created).
 */
export interface EventAccessFacts {
  asset_id: string;
  tenant_id: string;
  public: boolean;
  event_attributes: Record<string, unknown>;
}

/** The event's access facts: one index probe, none of the status columns a read of the event computes. */
export async function eventAccessFacts(
  db: Queryable,
  eventId: string,
): Promise<EventAccessFacts | undefined> {
  const rows = await db.query<EventAccessFacts>(
    "select asset_id, tenant_id, public, event_attributes from asset_events where id = $1",
    [eventId],
  );
  return rows[0];
}

/** The access facts of many events in one probe, by event id; ids of no asset event are absent. */
export async function eventAccessFactsOf(
  db: Queryable,
  eventIds: string[],
): Promise<Map<string, EventAccessFacts>> {
  const rows = await db.query<EventAccessFacts & { id: string }>(
    "select id, asset_id, tenant_id, public, event_attributes from asset_events where id = any($1::uuid[])",
    [eventIds],
  );
  return new Map(rows.map(({ id, ...facts }) => [id, facts]));
}

/** The event that created an asset (`NewAsset`): it holds the asset's creation attributes. */
export async function creationEventOf(db: Queryable, assetId: string): Promise<AssetEventRow | undefined> {
  return (
    await readEvents(
      db,
      `select ${EVENT_COLUMNS} from asset_events where asset_id = $1 and operation = 'NewAsset'`,
      [assetId],
    )
  )[0];
}

/** Events of one asset in the order they were accepted (to rebuild the asset at a time). */
export function eventsOfAsset(db: Queryable, assetId: string, until?: Date): Promise<AssetEventRow[]> {
  return readEvents(
    db,
    `select ${EVENT_COLUMNS} from asset_events where asset_id = $1 and ($2::timestamptz is null or timestamp_accepted <= $2) order by seq`,
    [assetId, until ?? null],
  );
}

/** One page of events matching `where`, newest first, or in SIMPLEHASHV1 order (oldest first) when asked. */
export function selectAssetEvents(
  db: Queryable,
  where: string,
  params: unknown[],
  opts: { cursor: number; limit: number; ascending: boolean; from?: string; reusePlan?: boolean },
): Promise<AssetEventRow[]> {
  const n = params.length;
  // A plan kept for one asset's pages (`reusePlan`) cannot take `($n = 0 or seq < $n)` as an index
  // bound, and read a deep page of a large asset by filtering every newer event (200,001 rows,
  // 62 ms, where the bound takes 0.19 ms): it gets `seq <` a bound above every seq for the first
  // page. Its kept plan is the same walk of the asset's index, `seq` added to the index condition
  // (the conserver's look-up on a small asset: 0.07 ms against 0.2). A statement planned for its
  // values folds the OR away on a first page, where the extra bound cost the 1M-event list's
  // first page 5-19 % of its rate (docs/performance.md, issue 35's ninth and tenth sessions).
  const kept = !opts.ascending && opts.reusePlan === true;
  const cursor = opts.ascending
    ? `seq > $${n + 1}`
    : kept
      ? `seq < $${n + 1}`
      : `($${n + 1}::bigint = 0 or seq < $${n + 1})`;
  const bound = kept && opts.cursor <= 0 ? Number.MAX_SAFE_INTEGER : opts.cursor;
  return readEvents(
    db,
    `select ${EVENT_COLUMNS} from ${opts.from ?? "asset_events"} where ${where} and ${cursor} order by seq ${opts.ascending ? "asc" : "desc"} limit $${n + 2}`,
    [...params, bound, opts.limit],
    { reusePlan: opts.reusePlan ?? false },
  );
}

/** An asset event waiting on the commit queue: its id, and its place in the queue. */
export interface QueuedEvent {
  id: string;
  seq: number;
}

/** The events with these ids, in no particular order. */
export function eventsByIds(db: Queryable, ids: string[]): Promise<StoredAssetEvent[]> {
  return readEvents<StoredAssetEvent>(
    db,
    `select ${EVENT_COLUMNS} from asset_events where id = any($1::uuid[])`,
    [ids],
  );
}

/** SIMPLE_HASH events accepted before `end` and not yet anchored, locked, by tenancy in acceptance order. */
export function lockUnanchoredSimpleHashEvents(tx: Queryable, end: Date): Promise<AssetEventRow[]> {
  return readEvents(
    tx,
    `select ${EVENT_COLUMNS} from asset_events where confirmation_status = 'STORED' and proof_mechanism = 'SIMPLE_HASH'
       and timestamp_accepted < $1 order by tenant_id, seq for update`,
    [end],
  );
}

/** Where a block anchors something: its number, and the transaction in it. */
export interface AnchorPlace {
  blockNumber: number;
  transactionHash: string;
  transactionIndex: number;
}

/** A simple-hash window's events, anchored: CONFIRMED, with the block transaction that holds them. */
export async function confirmSimpleHashEvents(tx: Queryable, ids: string[], at: AnchorPlace): Promise<void> {
  await tx.query(
    `update asset_events set confirmation_status = 'CONFIRMED', block_number = $2, transaction_id = $3, transaction_index = $4
       where id = any($1::uuid[])`,
    [ids, at.blockNumber, at.transactionHash, at.transactionIndex],
  );
}
