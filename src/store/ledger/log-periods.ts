import type { Queryable } from "../drivers/db.js";
import { numbersOf } from "../query/sql.js";

/** A period of a tenancy's log (docs/scaling.md, "Log periods"). */
export interface PeriodRow {
  period: number;
  /** The index of its first entry: 0, or the previous period's final size (its link entry). */
  start_size: number;
  /** Its final size once closed. */
  end_size: number | undefined;
  /** Its final checkpoint's root once closed. */
  root: Uint8Array | undefined;
  opened_at: Date;
  closed_at: Date | undefined;
  /** When its objects were all in the blob store, and when its node rows left the database. */
  archived_at: Date | undefined;
  dropped_at: Date | undefined;
}

type Raw = {
  period: number;
  start_size: string | number;
  end_size: string | number | null;
  root: Uint8Array | null;
  opened_at: Date | string;
  closed_at: Date | string | null;
  archived_at: Date | string | null;
  dropped_at: Date | string | null;
};

const norm = (r: Raw): PeriodRow => ({
  period: Number(r.period),
  start_size: Number(r.start_size),
  end_size: r.end_size === null ? undefined : Number(r.end_size),
  root: r.root === null ? undefined : new Uint8Array(r.root),
  opened_at: new Date(r.opened_at),
  closed_at: r.closed_at === null ? undefined : new Date(r.closed_at),
  archived_at: r.archived_at === null ? undefined : new Date(r.archived_at),
  dropped_at: r.dropped_at === null ? undefined : new Date(r.dropped_at),
});

const COLUMNS = "period, start_size, end_size, root, opened_at, closed_at, archived_at, dropped_at";

/** A log's periods in order; a log never closed has none (it is all period 0). */
export async function periodsOf(db: Queryable, tenantId: string): Promise<PeriodRow[]> {
  const rows = await db.query<Raw>(
    `select ${COLUMNS} from log_periods where tenant_id = $1 order by period`,
    [tenantId],
  );
  return rows.map(norm);
}

/**
 * The open period: the newest row, or period 0 from entry 0 for a log never closed, opened when
 * its first checkpoint was made (when the log began to be published).
 */
export async function openPeriod(
  db: Queryable,
  tenantId: string,
): Promise<{ period: number; start_size: number; opened_at: Date | undefined }> {
  const rows = await db.query<Raw>(
    `select ${COLUMNS} from log_periods where tenant_id = $1 order by period desc limit 1`,
    [tenantId],
  );
  const r = rows[0] && norm(rows[0]);
  if (r) return r;
  const first = await db.query<{ created_at: Date | string }>(
    "select created_at from tlog_checkpoints where tenant_id = $1 order by size limit 1",
    [tenantId],
  );
  return { period: 0, start_size: 0, opened_at: first[0] ? new Date(first[0].created_at) : undefined };
}

/**
 * Closes the open period at `endSize` with its final checkpoint's root and opens the next one at
 * the same index, whose first entry is the link `linkRecord` (in the closing transaction).
 */
export async function recordClose(
  tx: Queryable,
  c: {
    tenantId: string;
    period: number;
    startSize: number;
    endSize: number;
    root: Uint8Array;
    linkRecord: string;
  },
): Promise<void> {
  await tx.query(
    `with closed as (
       insert into log_periods (tenant_id, period, start_size, end_size, root, closed_at)
       values ($1, $2, $3, $4, $5, now())
       on conflict (tenant_id, period) do update set end_size = excluded.end_size, root = excluded.root, closed_at = now())
     insert into log_periods (tenant_id, period, start_size, link_record) values ($1, $2 + 1, $4, $6)`,
    [c.tenantId, c.period, c.startSize, c.endSize, Buffer.from(c.root), c.linkRecord],
  );
}

/**
 * Logs whose open period has reached `maxEntries` entries (0: no limit) or is older than
 * `maxAgeMs` (0: no limit) and holds an entry past its link: the periodic close's work.
 */
export async function logsDueToClose(db: Queryable, maxEntries: number, maxAgeMs: number): Promise<string[]> {
  if (maxEntries <= 0 && maxAgeMs <= 0) return [];
  const rows = await db.query<{ tenant_id: string }>(
    `with open as (
       select l.tenant_id, l.tree_size,
         coalesce(p.start_size, 0) as start_size,
         coalesce(p.opened_at, (select c.created_at from tlog_checkpoints c where c.tenant_id = l.tenant_id order by c.size limit 1)) as opened_at,
         p.period is not null and p.period > 0 as linked
       from logs l
       left join lateral (select period, start_size, opened_at from log_periods p where p.tenant_id = l.tenant_id order by period desc limit 1) p on true)
     select tenant_id from open
     where tree_size > start_size + (case when linked then 1 else 0 end)
       and (($1::bigint > 0 and tree_size - start_size >= $1::bigint)
         or ($2::bigint > 0 and opened_at < now() - make_interval(secs => $2::bigint / 1000.0)))`,
    [maxEntries, maxAgeMs],
  );
  return rows.map((r) => r.tenant_id);
}

/** Closed periods whose objects are not yet in the blob store, in order. */
export async function periodsToArchive(db: Queryable, tenantId: string): Promise<PeriodRow[]> {
  const rows = await db.query<Raw>(
    `select ${COLUMNS} from log_periods where tenant_id = $1 and end_size is not null and archived_at is null order by period`,
    [tenantId],
  );
  return rows.map(norm);
}

/** Marks periods archived: every object they need is named in `tlog_archive`, reaching MMR size `mmrEnd`. */
export async function markArchived(
  tx: Queryable,
  tenantId: string,
  periods: number[],
  mmrEnd: number,
): Promise<void> {
  await tx.query(
    "update log_periods set archived_at = now(), mmr_end = $3 where tenant_id = $1 and period = any($2::int[])",
    [tenantId, periods, mmrEnd],
  );
}

/** Archived periods whose node rows are still in the database. */
export async function periodsToDrop(db: Queryable, tenantId: string): Promise<number[]> {
  return numbersOf(
    db,
    "period",
    "select period from log_periods where tenant_id = $1 and archived_at is not null and dropped_at is null order by period",
    [tenantId],
  );
}

/**
 * Drops the node rows of a log's archived prefix: the RFC 9162 tree's perfect subtrees within its
 * first `end` entries and the MMR's nodes below `mmrEnd`, except those appends and later proofs
 * read (`keepTree`: the frontier at `end`; `keepMmr`: the peaks at `mmrEnd`). Returns how many.
 */
export async function dropArchivedNodes(
  tx: Queryable,
  d: {
    tenantId: string;
    periods: number[];
    end: number;
    mmrEnd: number;
    keepTree: Array<{ level: number; idx: number }>;
    keepMmr: number[];
  },
): Promise<{ tree: number; mmr: number }> {
  const tree = await tx.query<{ n: number | string }>(
    `with gone as (
       delete from tlog_nodes n where n.tenant_id = $1 and (n.idx + 1) * (1::bigint << n.level::int) <= $2
         and not exists (select 1 from unnest($3::smallint[], $4::bigint[]) as k(level, idx) where k.level = n.level and k.idx = n.idx)
       returning 1)
     select count(*) as n from gone`,
    [d.tenantId, d.end, d.keepTree.map((k) => k.level), d.keepTree.map((k) => k.idx)],
  );
  const mmr = await tx.query<{ n: number | string }>(
    `with gone as (
       delete from mmr_nodes where tenant_id = $1 and idx < $2 and idx <> all($3::bigint[]) returning 1)
     select count(*) as n from gone`,
    [d.tenantId, d.mmrEnd, d.keepMmr],
  );
  await tx.query(
    "update log_periods set dropped_at = now() where tenant_id = $1 and period = any($2::int[])",
    [d.tenantId, d.periods],
  );
  return { tree: Number(tree[0]?.n ?? 0), mmr: Number(mmr[0]?.n ?? 0) };
}
