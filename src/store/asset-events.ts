import type { CoveringSeal } from "../core/ledger/trust.js";
import type { Queryable } from "./db.js";
import { countWhere } from "./sql.js";

export type Principal4 = {
  issuer: string;
  subject: string;
  display_name: string;
  email: string;
};

export interface AssetEventRow {
  seq: number;
  id: string;
  asset_id: string;
  tenant_id: string;
  operation: string;
  behaviour: string;
  event_attributes: Record<string, unknown>;
  asset_attributes: Record<string, unknown>;
  timestamp_declared: Date;
  timestamp_accepted: Date;
  timestamp_committed: Date | null;
  principal_declared: Principal4;
  principal_accepted: Principal4;
  confirmation_status: string;
  proof_mechanism: string;
  public: boolean;
  mmr_index: number | null;
  idtimestamp: string | null;
  merklelog_entry: Record<string, unknown> | null;
  transaction_id: string;
  block_number: number;
  transaction_index: number;
  from_address: string;
  /** The first seal covering this event's log entry (trust above COMMITTED is derived from it). */
  covering_seal: CoveringSeal | null;
}

// Statements using these name the table `asset_events` (no alias): the seal probes refer to it.
const COVERING_SEAL = `(select s.%s from seals s where s.tenant_id = asset_events.tenant_id and s.mmr_size > asset_events.mmr_index order by s.mmr_size limit 1)`;

/** The first seal covering the event, as JSON (one primary-key probe; none for uncommitted events). */
const COVERING_SEAL_SQL = COVERING_SEAL.replace(
  "s.%s",
  "jsonb_build_object('mmr_size', s.mmr_size, 'timestamp_ms', s.timestamp_ms, 'idtimestamp', s.idtimestamp, 'peaks', s.peaks, " +
    "'anchored_block', s.anchored_block, 'anchor_block_hash', s.anchor_block_hash, 'anchor_tx_hash', s.anchor_tx_hash, 'anchor_tx_index', s.anchor_tx_index)",
);

/**
 * An event's status as read: a committed event of a MERKLE_LOG asset is CONFIRMED once a seal
 * covers it and UNEQUIVOCAL once that seal is anchored (the workers no longer rewrite the row);
 * otherwise the status stored on the row.
 */
export const EVENT_STATUS_SQL = `(case when asset_events.mmr_index is not null and asset_events.proof_mechanism = 'MERKLE_LOG' then coalesce(${COVERING_SEAL.replace(
  "s.%s",
  "case when s.anchored_block is null then 'CONFIRMED' else 'UNEQUIVOCAL' end",
)}, 'COMMITTED') else asset_events.confirmation_status end)`;

export const EVENT_COLUMNS =
  "seq, id, asset_id, tenant_id, operation, behaviour, event_attributes, asset_attributes, timestamp_declared, timestamp_accepted, " +
  "timestamp_committed, principal_declared, principal_accepted, confirmation_status, proof_mechanism, public, mmr_index, idtimestamp, " +
  `merklelog_entry, transaction_id, block_number, transaction_index, from_address, ${COVERING_SEAL_SQL} as covering_seal`;

export type NewAssetEvent = Omit<
  AssetEventRow,
  | "seq"
  | "timestamp_committed"
  | "mmr_index"
  | "idtimestamp"
  | "merklelog_entry"
  | "transaction_id"
  | "block_number"
  | "transaction_index"
  | "covering_seal"
>;

/** An event as stored, without its place in the table (`seq` is only used for paging). */
export type StoredAssetEvent = Omit<AssetEventRow, "seq">;

const INSERT_COLS =
  "id, asset_id, tenant_id, operation, behaviour, event_attributes, asset_attributes, timestamp_declared, timestamp_accepted, principal_declared, principal_accepted, confirmation_status, proof_mechanism, public, from_address";

/**
 * Inserts many events in one statement (group commit) and returns them as stored, in
 * input order. Nothing is read back: the columns not inserted start at their defaults,
 * and returning the JSON columns would cost as much as the insert itself (PGlite).
 */
export async function insertAssetEvents(db: Queryable, events: NewAssetEvent[]): Promise<StoredAssetEvent[]> {
  if (events.length === 0) return [];
  const params: unknown[] = [];
  const tuples = events.map((e) => {
    const base = params.length;
    params.push(
      e.id,
      e.asset_id,
      e.tenant_id,
      e.operation,
      e.behaviour,
      JSON.stringify(e.event_attributes),
      JSON.stringify(e.asset_attributes),
      e.timestamp_declared,
      e.timestamp_accepted,
      JSON.stringify(e.principal_declared),
      JSON.stringify(e.principal_accepted),
      e.confirmation_status,
      e.proof_mechanism,
      e.public,
      e.from_address,
    );
    const p = (i: number) => `$${base + i}`;
    return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}::jsonb, ${p(7)}::jsonb, ${p(8)}, ${p(9)}, ${p(10)}::jsonb, ${p(11)}::jsonb, ${p(12)}, ${p(13)}, ${p(14)}, ${p(15)})`;
  });
  await db.query(`insert into asset_events (${INSERT_COLS}) values ${tuples.join(", ")}`, params);
  return events.map((e) => ({
    ...e,
    timestamp_committed: null,
    mmr_index: null,
    idtimestamp: null,
    merklelog_entry: null,
    transaction_id: "",
    block_number: 0,
    transaction_index: 0,
    covering_seal: null,
  }));
}

export async function getAssetEvent(
  db: Queryable,
  assetId: string,
  id: string,
): Promise<AssetEventRow | undefined> {
  return (
    await db.query<AssetEventRow>(
      `select ${EVENT_COLUMNS} from asset_events where asset_id = $1 and id = $2`,
      [assetId, id],
    )
  )[0];
}

/** Events of one asset in the order they were accepted (to rebuild the asset at a time). */
export function eventsOfAsset(db: Queryable, assetId: string, until?: Date): Promise<AssetEventRow[]> {
  return db.query<AssetEventRow>(
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
  const cursor = opts.ascending ? `seq > $${n + 1}` : `($${n + 1}::bigint = 0 or seq < $${n + 1})`;
  return db.query<AssetEventRow>(
    `select ${EVENT_COLUMNS} from ${opts.from ?? "asset_events"} where ${where} and ${cursor} order by seq ${opts.ascending ? "asc" : "desc"} limit $${n + 2}`,
    [...params, opts.cursor, opts.limit],
    { reusePlan: opts.reusePlan ?? false },
  );
}

export function countAssetEvents(
  db: Queryable,
  where: string,
  params: unknown[],
  cap?: number,
  from = "asset_events",
): Promise<number> {
  return countWhere(db, from, where, params, cap);
}
