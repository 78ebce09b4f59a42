import type { Queryable } from "../drivers/db.js";
import { sqlTime } from "../drivers/sql-time.js";
import type { AssetEventRow, StoredAssetEvent } from "./asset-events.js";
import {
  type ErasableValue,
  erasableColumns,
  erasablesClause,
  withWrittenErasables,
} from "./erasable-values.js";

/**
 * An asset event as a group inserts it, with the values its erasable attributes commit to
 * (`erasables`): they go in with it, in the same statement.
 */
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
  | "erasable"
> & { erasables?: readonly ErasableValue[] | undefined };

const INSERT_COLS =
  "id, asset_id, tenant_id, operation, behaviour, event_attributes, asset_attributes, timestamp_declared, timestamp_accepted, principal_declared, principal_accepted, confirmation_status, proof_mechanism, public, from_address";

/** The columns a group inserts, with their SQL types: the shape of each row of its JSON document. */
const INSERT_ROW_TYPE =
  "id uuid, asset_id uuid, tenant_id uuid, operation text, behaviour text, event_attributes jsonb, asset_attributes jsonb, " +
  "timestamp_declared timestamptz, timestamp_accepted timestamptz, principal_declared jsonb, principal_accepted jsonb, " +
  "confirmation_status text, proof_mechanism text, public boolean, from_address text";

/** The insert of a group's rows from their JSON document (`$1`, `rowsDocument`); `r` names a row. */
const INSERT_ROWS = `insert into asset_events (${INSERT_COLS})
       select ${INSERT_COLS} from jsonb_to_recordset($1::jsonb) as r(${INSERT_ROW_TYPE})`;

const INSERTED = `ins as (${INSERT_ROWS}
       returning id, tenant_id, seq, asset_id, proof_mechanism)`;

/** The events inserted (`ins`) join the commit queue when they are MERKLE_LOG. */
const QUEUE_INSERTED =
  "insert into asset_event_queue (id, tenant_id, seq, asset_id) select id, tenant_id, seq, asset_id from ins where proof_mechanism = 'MERKLE_LOG'";

/**
 * The two texts of a group's insert: without erasable values (nearly every group, the text it
 * always had) and with them, from `$2`. Each is prepared once per connection.
 */
const INSERTS = {
  plain: `with ${INSERTED}
     ${QUEUE_INSERTED}`,
  withValues: `with ${INSERTED}, ${erasablesClause(2, "ins")}
     ${QUEUE_INSERTED}`,
};

/**
 * Inserts many events in one statement (group commit) and returns them as stored, in
 * input order. Nothing is read back: the columns not inserted start at their defaults,
 * and returning the JSON columns would cost as much as the insert itself (PGlite).
 */
export async function insertAssetEvents(db: Queryable, events: NewAssetEvent[]): Promise<StoredAssetEvent[]> {
  if (events.length === 0) return [];
  // The group goes as one JSON document of its rows, not as fifteen arrays: the driver wrote each
  // array element by element, escaping every quote of the attributes' JSON inside an array literal
  // (~2.5x the CPU of one JSON.stringify of the rows, which nests the attributes as they are). One
  // statement text for any group size, so its plan is made once per connection. MERKLE_LOG events
  // also join the commit queue, and their erasable values their table, in the same statement.
  const values = erasableColumns(events);
  await db.query(
    values ? INSERTS.withValues : INSERTS.plain,
    values ? [rowsDocument(events), ...values] : [rowsDocument(events)],
    { reusePlan: true },
  );
  return storedEvents(events);
}

/** What an asset was when a group authorised its events against it: every column that can change. */
export interface AssetState {
  id: string;
  attributes: Record<string, unknown>;
  tracked: string;
  confirmation_status: string;
}

const IF_UNCHANGED = `with expected as (
       select * from jsonb_to_recordset($2::jsonb) as x(id uuid, attributes jsonb, tracked text, confirmation_status text)),
     unchanged as (
       select a.id from assets a join expected x on x.id = a.id
       where a.attributes = x.attributes and a.tracked = x.tracked and a.confirmation_status = x.confirmation_status
       order by a.id for share of a),
     ins as (${INSERT_ROWS}
       where r.asset_id in (select id from unchanged)
       returning id, tenant_id, seq, asset_id, proof_mechanism),
     queued as (${QUEUE_INSERTED})`;

const CHANGED = "select x.id from expected x where x.id not in (select id from unchanged)";

/** `insertAssetEventsIfUnchanged`'s two texts, as `INSERTS`: its erasable values from `$3`. */
const IF_UNCHANGED_INSERTS = {
  plain: `${IF_UNCHANGED}
     ${CHANGED}`,
  withValues: `${IF_UNCHANGED}, ${erasablesClause(3, "ins")}
     ${CHANGED}`,
};

/**
 * Inserts the events whose asset is still as `expected` says, in one statement that is its own
 * transaction: it takes those assets' row locks in id order (`for share`, as a group that changes
 * no asset does) and compares each locked row with the state its events were authorised
 * against, so an asset changed since it was read writes none of its events (nor their erasable
 * values). Returns the events written, as stored; the caller writes the others the locking way.
 */
export async function insertAssetEventsIfUnchanged(
  db: Queryable,
  events: NewAssetEvent[],
  expected: AssetState[],
): Promise<StoredAssetEvent[]> {
  if (events.length === 0) return [];
  const values = erasableColumns(events);
  const params = [rowsDocument(events), JSON.stringify(expected)];
  const stale = await db.query<{ id: string }>(
    values ? IF_UNCHANGED_INSERTS.withValues : IF_UNCHANGED_INSERTS.plain,
    values ? [...params, ...values] : params,
    { reusePlan: true },
  );
  // The assets that changed, not the events written: almost always no row at all to send and
  // parse, where the events' ids were one row an event. An event is written exactly when its
  // asset is expected and unchanged.
  const changed = new Set(stale.map((a) => a.id));
  const compared = new Set(expected.map((a) => a.id));
  return storedEvents(events.filter((e) => compared.has(e.asset_id) && !changed.has(e.asset_id)));
}

/** A group's rows as one JSON document (`jsonb_to_recordset` with INSERT_ROW_TYPE). */
function rowsDocument(events: NewAssetEvent[]): string {
  return JSON.stringify(
    events.map((e) => ({
      id: e.id,
      asset_id: e.asset_id,
      tenant_id: e.tenant_id,
      operation: e.operation,
      behaviour: e.behaviour,
      event_attributes: e.event_attributes,
      asset_attributes: e.asset_attributes,
      timestamp_declared: sqlTime(e.timestamp_declared),
      timestamp_accepted: sqlTime(e.timestamp_accepted),
      principal_declared: e.principal_declared,
      principal_accepted: e.principal_accepted,
      confirmation_status: e.confirmation_status,
      proof_mechanism: e.proof_mechanism,
      public: e.public,
      from_address: e.from_address,
    })),
  );
}

/**
 * The events as stored: the columns not inserted start at their defaults, and an event that
 * carried erasable values has them as its `erasable` member. What the write path answers and
 * hands the committer (and what `bench core` commits from memory).
 */
export function storedEvents(events: NewAssetEvent[]): StoredAssetEvent[] {
  // Written out, not spread: a spread of this many fields was ~2 % of the service's profile.
  return events.map((e) => {
    const stored: StoredAssetEvent = {
      id: e.id,
      asset_id: e.asset_id,
      tenant_id: e.tenant_id,
      operation: e.operation,
      behaviour: e.behaviour,
      event_attributes: e.event_attributes,
      asset_attributes: e.asset_attributes,
      timestamp_declared: e.timestamp_declared,
      timestamp_accepted: e.timestamp_accepted,
      timestamp_committed: null,
      principal_declared: e.principal_declared,
      principal_accepted: e.principal_accepted,
      confirmation_status: e.confirmation_status,
      proof_mechanism: e.proof_mechanism,
      public: e.public,
      mmr_index: null,
      idtimestamp: null,
      merklelog_entry: null,
      transaction_id: "",
      block_number: 0,
      transaction_index: 0,
      from_address: e.from_address,
      covering_seal: null,
    };
    return e.erasables?.length ? withWrittenErasables(stored, e.erasables) : stored;
  });
}
