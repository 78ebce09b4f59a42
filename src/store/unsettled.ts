import type { Db } from "./db.js";

/**
 * The levels a record holds only until the workers catch up: waiting for the committer (STORED,
 * an asset's PENDING), or in the log but not yet under a seal (COMMITTED). At any moment they are
 * the backlog, a few records, where the levels above are nearly every record of a tenancy.
 */
const UNSETTLED = new Set(["PENDING", "STORED", "COMMITTED"]);

/** Whether every status a filter accepts is an unsettled one (an empty filter accepts any). */
export function onlyUnsettled(statuses: readonly string[]): boolean {
  return statuses.length > 0 && statuses.every((s) => UNSETTLED.has(s));
}

/**
 * Events in the log that no seal covers yet: each log's entries from its sealed size on (the
 * primary key's range), as the events' rows.
 */
const UNSEALED_EVENTS =
  "select e.seq, e.asset_id from logs g join log_entries l on l.tenant_id = g.tenant_id and l.mmr_index >= g.sealed_size and l.kind = 'asset_event'" +
  " join asset_events e on e.id = l.record_id and e.tenant_id = l.tenant_id";

/**
 * The `seq`s of every asset event that can be STORED or COMMITTED now, read from the backlog's own
 * indexes (the commit queue, the unsealed end of each log, the partial indexes of the statuses
 * kept on rows), or undefined past `cap`. A superset: the list still tests each row's derived
 * status, so a record that moved on between the two reads is left out, never one that matches.
 * Without it, a list filtered by one of these levels tested the status of every event of the
 * tenancy to find the few (or none) that match (issue 59: the ingest bench's drain, a list of
 * STORED events, read every row after every batch).
 */
export function unsettledEventSeqs(db: Db, cap: number): Promise<string[] | undefined> {
  return backlogSeqs(
    db,
    `select seq from asset_event_queue
     union select seq from (${UNSEALED_EVENTS}) u
     union select seq from asset_events where confirmation_status = 'STORED' and proof_mechanism = 'SIMPLE_HASH'
     union select seq from asset_events where confirmation_status = 'COMMITTED'`,
    cap,
  );
}

/**
 * The `seq`s of every asset that can be PENDING, STORED or COMMITTED now (events waiting, an
 * unsealed newest event, or such a status kept on its row), or undefined past `cap`. A superset,
 * as for events.
 */
export function unsettledAssetSeqs(db: Db, cap: number): Promise<string[] | undefined> {
  return backlogSeqs(
    db,
    `select a.seq from assets a where a.id in (
       select asset_id from asset_event_queue
       union select asset_id from (${UNSEALED_EVENTS}) u
       union select asset_id from asset_events where confirmation_status = 'STORED' and proof_mechanism = 'SIMPLE_HASH')
     union select seq from assets where proof_mechanism <> 'MERKLE_LOG' and confirmation_status in ('PENDING', 'STORED', 'COMMITTED')`,
    cap,
  );
}

/**
 * Runs a backlog query with table walks switched off for it: each of its parts has an index that
 * holds only the backlog, but on the statistics of a table that grew since its last analyse the
 * planner may price a walk of the table as cheaper, and a walk is what this exists to avoid.
 */
async function backlogSeqs(db: Db, sql: string, cap: number): Promise<string[] | undefined> {
  const rows = await db.transaction(async (tx) => {
    await tx.query("set local enable_seqscan = off");
    return tx.query<{ seq: string | number }>(`${sql} limit ${Math.floor(cap) + 1}`);
  });
  return rows.length > cap ? undefined : rows.map((r) => String(r.seq));
}
