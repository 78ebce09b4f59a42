import type { Queryable } from "../drivers/db.js";

/** Since when (milliseconds since the epoch) the oldest piece of one log's waiting work has waited. */
export interface WaitingSince {
  tenant_id: string;
  since_ms: number;
}

const norm = (rows: Array<{ tenant_id: string; since_ms: number | string }>): WaitingSince[] =>
  rows.map((r) => ({ tenant_id: r.tenant_id, since_ms: Number(r.since_ms) }));

/**
 * Each log's oldest record waiting for the committer, by when it was accepted: the head of the
 * asset events' commit queue and of the asset-free events' (the committer's
 * own probes, `tenantsWithStoredRecords`), so a scrape reads one index entry per log whatever
 * the backlog's size. Logs with nothing waiting are left out.
 */
export async function uncommittedSince(db: Queryable): Promise<WaitingSince[]> {
  return norm(
    await db.query(
      `select tenant_id, since_ms from (
         select t.id as tenant_id, least(
           (select (extract(epoch from e.timestamp_accepted) * 1000)::float8
              from (select q.id, q.tenant_id from asset_event_queue q where q.tenant_id = t.id order by q.seq limit 1) q
              join asset_events e on e.id = q.id and e.tenant_id = q.tenant_id),
           (select f.created_at::float8
              from (select q.id, q.tenant_id from event_queue q where q.tenant_id = t.id order by q.seq limit 1) q
              join events f on f.id = q.id and f.tenant_id = q.tenant_id)
         ) as since_ms
         from tenancies t) w
       where since_ms is not null`,
    ),
  );
}

/**
 * Each log's oldest checkpoint that no quorum of witnesses has cosigned yet, by when it was
 * made: a quorum marks every earlier checkpoint with the one it cosigned, so these are the
 * checkpoints past the last witnessed one (the partial index of the unwitnessed). Logs whose
 * checkpoints are all witnessed are left out.
 */
export async function unwitnessedSince(db: Queryable): Promise<WaitingSince[]> {
  return norm(
    await db.query(
      `select tenant_id, since_ms from (
         select g.tenant_id, (select (extract(epoch from c.created_at) * 1000)::float8 from tlog_checkpoints c
             where c.tenant_id = g.tenant_id and not c.witnessed order by c.size limit 1) as since_ms
         from logs g) w
       where since_ms is not null`,
    ),
  );
}
