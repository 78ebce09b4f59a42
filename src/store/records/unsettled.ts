import type { Db } from "../drivers/db.js";

/**
 * The levels a record holds only until the workers catch up: waiting for the committer (STORED,
 * an asset's PENDING), or in the log but not yet under a seal (COMMITTED). At any moment they are
 * the backlog, a few records, where the levels above are nearly every record of a tenancy.
 */
const UNSETTLED = new Set(["PENDING", "STORED", "COMMITTED", "CONFIRMED"]);

/**
 * How far back in its log a list by these statuses must look: `null` when one of them is a
 * settled level (UNEQUIVOCAL, FAILED) or none is asked (any status); `sealed` when the highest is
 * COMMITTED (the entries past the last seal); `unanchored` when CONFIRMED is asked (the entries
 * past the last seal that is anchored and witnessed). With anchoring on, CONFIRMED is the few
 * seals the anchorer has not reached; with it off, every seal, and the look-back is the whole
 * log, which `cap` turns back into a walk of the list (CONFIRMED is then most rows).
 */
export type Backlog = "sealed" | "unanchored";

export function backlogOf(statuses: readonly string[]): Backlog | null {
  if (statuses.length === 0 || !statuses.every((s) => UNSETTLED.has(s))) return null;
  return statuses.includes("CONFIRMED") ? "unanchored" : "sealed";
}

/**
 * Events in the log that no seal covers yet: each log's entries from its sealed size on (the
 * primary key's range), as the events' rows. Lateral and fenced (`offset 0`, which keeps the
 * planner from flattening them into a join), so that each log's range is read through the key with
 * that log's size, and each entry's event by its id: joined plainly, the planner walked every
 * entry of every log and tested it against its log's size.
 */
const backlogEvents = (start: string) =>
  "select e.seq, e.asset_id from logs g" +
  ` cross join lateral (select l.record_id, l.tenant_id from log_entries l where l.tenant_id = g.tenant_id and l.mmr_index >= ${start} and l.kind = 'asset_event' offset 0) l` +
  " cross join lateral (select e.seq, e.asset_id from asset_events e where e.id = l.record_id and e.tenant_id = l.tenant_id offset 0) e";

/**
 * Where a log's CONFIRMED entries can start: the size of the seal before its first seal that is not
 * anchored and witnessed (`seals_unsettled`, a partial index of those), or its sealed size when
 * every seal is; seals cover prefixes, so every entry before that seal's range is UNEQUIVOCAL.
 */
const UNANCHORED_START =
  "coalesce((select coalesce((select max(p.mmr_size) from seals p where p.tenant_id = g.tenant_id and p.mmr_size < u.first), 0)" +
  " from (select min(mmr_size) as first from seals u where u.tenant_id = g.tenant_id and (u.anchored_block is null or not u.witnessed)) u" +
  " where u.first is not null), g.sealed_size)";

const START: Record<Backlog, string> = { sealed: "g.sealed_size", unanchored: UNANCHORED_START };

/**
 * The `seq`s of every asset event that can be STORED or COMMITTED now, read from the backlog's own
 * indexes (the commit queue, the unsealed end of each log, the partial index of SIMPLE_HASH
 * events waiting for their anchor), or undefined past `cap`. A MERKLE_LOG event's COMMITTED is
 * derived from its log entry (no row keeps it since migration 011), a SIMPLE_HASH event goes
 * from STORED to CONFIRMED. A superset: the list still tests each row's derived
 * status, so a record that moved on between the two reads is left out, never one that matches.
 * Without it, a list filtered by one of these levels tested the status of every event of the
 * tenancy to find the few (or none) that match (issue 59: the ingest bench's drain, a list of
 * STORED events, read every row after every batch).
 */
export function unsettledEventSeqs(db: Db, backlog: Backlog, cap: number): Promise<string[] | undefined> {
  return backlogSeqs(
    db,
    `select seq from asset_event_queue
     union select seq from (${backlogEvents(START[backlog])}) u
     union select seq from asset_events where confirmation_status = 'STORED' and proof_mechanism = 'SIMPLE_HASH'`,
    cap,
  );
}

/**
 * The `seq`s of every asset that can have one of the backlog's statuses now (events waiting, a
 * newest event in the backlog's part of its log, or such a status kept on its row), or undefined
 * past `cap`. A superset, as for events.
 */
export function unsettledAssetSeqs(db: Db, backlog: Backlog, cap: number): Promise<string[] | undefined> {
  return backlogSeqs(
    db,
    `select a.seq from assets a where a.id in (
       select asset_id from asset_event_queue
       union select asset_id from (${backlogEvents(START[backlog])}) u
       union select asset_id from asset_events where confirmation_status = 'STORED' and proof_mechanism = 'SIMPLE_HASH')
     union select seq from assets where proof_mechanism <> 'MERKLE_LOG' and confirmation_status in ('PENDING', 'STORED', 'COMMITTED', 'CONFIRMED')`,
    cap,
  );
}

/**
 * Runs a backlog query with table walks switched off for it: each of its parts has an index that
 * holds only the backlog, but on the statistics of a table that grew since its last analyse the
 * planner may price a walk of the table as cheaper, and a walk is what this exists to avoid.
 */
async function backlogSeqs(db: Db, sql: string, cap: number): Promise<string[] | undefined> {
  const rows = await db.query<{ seq: string | number }>(`${sql} limit ${Math.floor(cap) + 1}`, [], {
    noTableWalk: true,
  });
  return rows.length > cap ? undefined : rows.map((r) => String(r.seq));
}
