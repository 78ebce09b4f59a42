import type { FreeEventSearchSpec } from "../../core/filters/list-spec.js";
import {
  compileODataFilter,
  type ODataColumnMap,
  type ODataExpr,
  requiredTrails,
} from "../../core/odata/index.js";
import type { FreeEventSource } from "../../formats/record/free-event.js";
import { subjectSpellings } from "../../formats/vcon/subject.js";
import type { Db, Queryable } from "../drivers/db.js";
import { firstRow, Where } from "../query/sql.js";
import {
  type ErasableValue,
  erasableColumns,
  erasablesClause,
  withErasables,
  withWrittenErasables,
} from "./erasable-values.js";
import { narrowedSource } from "./narrowed-source.js";

/** A stored asset-free event: what the record mapper reads, and its place in the table. */
export interface FreeEventRow extends FreeEventSource {
  seq: number;
}

/** The table of asset-free events, for the list's narrowing probe. */
const FREE_EVENT_TABLE = "events";

/** Column of each OData property in the `events` table (origin_tenant is `tenant/<uuid>` on the wire). */
const SEARCH_COLUMNS: ODataColumnMap = {
  trails: { sql: "trails", type: "text[]" },
  event_type: { sql: "event_type", type: "text" },
  origin_tenant: { sql: "('tenant/' || tenant_id::text)", type: "text" },
  created_by: { sql: "created_by", type: "text" },
  created_at: { sql: "created_at", type: "bigint" },
  "ledger_entry/index": { sql: "mmr_index", type: "bigint" },
  "ledger_entry/idtimestamp": { sql: "coalesce(idtimestamp, '')", type: "text" },
  "ledger_entry/content_hash": { sql: "coalesce(content_hash, '')", type: "text" },
  attributes: { sql: "attributes", type: "jsonb-text" },
};

/** A search's WHERE over one tenancy's asset-free events. */
export function freeEventsOfTenancy(tenantId: string): Where {
  return new Where([tenantId]).and("tenant_id = $1");
}

/** Adds a parsed OData filter, compiled over the `events` columns. */
export function matchingODataFilter(w: Where, filter: ODataExpr): void {
  w.fragment((first) => compileODataFilter(filter, SEARCH_COLUMNS, first));
}

/** The probe for events carrying any of these trails: only the trails index serves it. */
export function withAnyTrail(trails: string[]): Where {
  return new Where([trails]).and("trails && $1::text[]");
}

const FREE_EVENT_COLUMNS =
  "seq, id, tenant_id, attributes, trails, event_type, created_by, created_at, confirmation_status, mmr_index, idtimestamp, content_hash";

/**
 * A new asset-free event as written (the database numbers it and sets its status STORED), with
 * the values its erasable attributes commit to (`erasables`), which go in with it.
 */
export type NewFreeEvent = Pick<
  FreeEventRow,
  "id" | "tenant_id" | "attributes" | "trails" | "event_type" | "created_by" | "created_at"
> & { statement?: Uint8Array | undefined; erasables?: readonly ErasableValue[] | undefined };

/**
 * Inserts a group's asset-free events with one statement, returning them in the same order. The
 * same statement queues them for the committer (`event_queue`), adds them to their tenancies'
 * trail counts (each trail once per event, and `''` for every event), in key order so that
 * concurrent groups lock count rows in one order, and stores their erasable values when they carry any (a row carrying them has its `erasable` member).
 */
export async function insertFreeEvents(db: Queryable, events: NewFreeEvent[]): Promise<FreeEventRow[]> {
  if (events.length === 0) return [];
  const values = erasableColumns(events);
  const rows = await db.query<FreeEventRow>(
    `with added as (
       insert into events (id, tenant_id, attributes, trails, event_type, created_by, created_at, confirmation_status, statement)
       select id, tenant_id, attributes, array(select jsonb_array_elements_text(trails)), event_type, created_by, created_at, 'STORED', statement
       from unnest($1::uuid[], $2::uuid[], $3::jsonb[], $4::jsonb[], $5::text[], $6::text[], $7::bigint[], $8::bytea[])
         as v(id, tenant_id, attributes, trails, event_type, created_by, created_at, statement)
       returning ${FREE_EVENT_COLUMNS}
     ), queued as (
       insert into event_queue (tenant_id, seq, id) select tenant_id, seq, id from added
     ), counted as (
       insert into event_trail_counts (tenant_id, trail, n)
       select tenant_id, trail, count(*) from (
         select a.tenant_id, t.trail from added a, lateral (select distinct u as trail from unnest(a.trails) u) t
         where t.trail <> ''
         union all select tenant_id, '' from added
       ) x group by tenant_id, trail order by tenant_id, trail
       on conflict (tenant_id, trail) do update set n = event_trail_counts.n + excluded.n
     )${values ? `, ${erasablesClause(9, "added")}` : ""}
     select * from added`,
    [
      events.map((e) => e.id),
      events.map((e) => e.tenant_id),
      events.map((e) => JSON.stringify(e.attributes)),
      events.map((e) => JSON.stringify(e.trails)),
      events.map((e) => e.event_type),
      events.map((e) => e.created_by),
      events.map((e) => e.created_at),
      events.map((e) => (e.statement ? Buffer.from(e.statement) : null)),
      ...(values ?? []),
    ],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return events.map((e) => {
    const row = byId.get(e.id) as FreeEventRow;
    return e.erasables?.length ? withWrittenErasables(row, e.erasables) : row;
  });
}

/** Asset-free events by id, in no particular order, each with whether it is a registered statement. */
export async function freeEventsByIds(
  db: Queryable,
  ids: string[],
): Promise<Array<FreeEventRow & { registered: boolean }>> {
  if (ids.length === 0) return [];
  return db.query<FreeEventRow & { registered: boolean }>(
    `select ${FREE_EVENT_COLUMNS}, statement is not null as registered from events where id = any($1::uuid[])`,
    [ids],
  );
}

/**
 * One asset-free event of the tenancy. Read as its record (`erasables`), with the values or
 * erasures of its erasable attributes joined; otherwise (its statement) without them.
 */
export async function getFreeEvent(
  db: Queryable,
  tenantId: string,
  id: string,
  opts?: { erasables: true },
): Promise<FreeEventRow | undefined> {
  const row = await firstRow<FreeEventRow>(
    db,
    `select ${FREE_EVENT_COLUMNS} from events where tenant_id = $1 and id = $2`,
    [tenantId, id],
  );
  return row && opts?.erasables ? (await withErasables(db, [row]))[0] : row;
}

/**
 * The tenancy's asset-free events of a vCon (on its trail `vcon://<uuid>`, or naming it as
 * `subject`), oldest first, registered signed statements left out: what an erasure of the vCon
 * reads.
 */
export function freeEventsOfVcon(
  db: Queryable,
  tenantId: string,
  subject: string,
  limit: number,
): Promise<FreeEventRow[]> {
  return db.query<FreeEventRow>(
    `select ${FREE_EVENT_COLUMNS} from events
      where tenant_id = $1 and statement is null and (trails && $2::text[] or attributes->>'subject' = any($2::text[]))
      order by seq limit $3`,
    [tenantId, subjectSpellings(subject), limit],
  );
}

/**
 * The tenancy of an asset-free event, whether it is a registered signed statement, and whether
 * its tenancy's log is open to registration by signature (what makes a statement public).
 */
export async function freeEventOwner(
  db: Queryable,
  id: string,
): Promise<{ tenant_id: string; registered: boolean; open_log: boolean } | undefined> {
  return (
    await db.query<{ tenant_id: string; registered: boolean; open_log: boolean }>(
      `select e.tenant_id, e.statement is not null as registered,
         coalesce((select p.open from scitt_registration_policies p where p.tenant_id = e.tenant_id), false) as open_log
       from events e where e.id = $1`,
      [id],
    )
  )[0];
}

/** Statement bytes of a registered signed statement (SCITT), if the event is one. */
export async function getStatement(db: Queryable, id: string): Promise<Uint8Array | undefined> {
  const rows = await db.query<{ statement: Uint8Array | null }>(
    "select statement from events where id = $1",
    [id],
  );
  const s = rows[0]?.statement;
  return s ? new Uint8Array(s) : undefined;
}

/**
 * A search of one tenancy's asset-free events: the page it asks for and the exact total. The
 * filter's required trails (`requiredTrails`) are the probe that may narrow it to a few rows
 * (`narrowedSource`, remembering common ones in `commonFilters`).
 */
export async function freeEventSearch(
  db: Db,
  commonFilters: Map<string, number>,
  spec: FreeEventSearchSpec,
): Promise<{ rows: FreeEventRow[]; total: number }> {
  const w = freeEventsOfTenancy(spec.tenantId);
  let probe: Where | undefined;
  if (spec.filter) {
    matchingODataFilter(w, spec.filter);
    const trails = requiredTrails(spec.filter);
    if (trails) probe = withAnyTrail(trails);
  }
  const counted = countedTrail(spec.filter);
  const from = await narrowedSource(db, commonFilters, FREE_EVENT_TABLE, w, probe);
  if (from === null) return { rows: [], total: 0 };
  const [rows, total] = await Promise.all([
    // Read as records: the values or erasures of their erasable attributes joined, one query a page.
    searchFreeEvents(db, w.sql, w.params, spec.skip, spec.top, from).then((page) => withErasables(db, page)),
    counted === undefined
      ? countFreeEvents(db, w.sql, w.params, from)
      : countTrailEvents(db, spec.tenantId, counted),
  ]);
  return { rows, total };
}

/**
 * The trail whose kept count is the search's exact total: a filter that is one trail and nothing
 * else, or `''` (every event of the tenancy) without a filter. A search reads the whole
 * tenancy's asset-free events (its administrators only), so a count over all of them reveals nothing.
 */
function countedTrail(filter: ODataExpr | undefined): string | undefined {
  if (!filter) return "";
  if (filter.kind !== "any" || filter.values.length !== 1) return undefined;
  const [trail] = filter.values;
  return trail === "" ? undefined : trail;
}

/** A search page; `from` is the FROM item (the table, or a `pinnedSource` of it). */
function searchFreeEvents(
  db: Queryable,
  where: string,
  params: unknown[],
  skip: number,
  top: number,
  from = "events",
): Promise<FreeEventRow[]> {
  const n = params.length;
  return db.query<FreeEventRow>(
    `select ${FREE_EVENT_COLUMNS} from ${from} where ${where} order by seq desc offset $${n + 1} limit $${n + 2}`,
    [...params, skip, top],
  );
}

/**
 * How many of a tenancy's events carry `trail` (`''`: all of them), from the counts their
 * inserts keep: exact, in the reader's snapshot, without reading the events.
 */
export async function countTrailEvents(db: Queryable, tenantId: string, trail: string): Promise<number> {
  const rows = await db.query<{ n: string | number }>(
    "select n from event_trail_counts where tenant_id = $1 and trail = $2",
    [tenantId, trail],
    { reusePlan: true },
  );
  return Number(rows[0]?.n ?? 0);
}

async function countFreeEvents(
  db: Queryable,
  where: string,
  params: unknown[],
  from = "events",
): Promise<number> {
  return (
    (await db.query<{ n: number }>(`select count(*)::int as n from ${from} where ${where}`, params))[0]?.n ??
    0
  );
}

/** An asset-free event waiting for the committer: what its leaf is made of. */
export interface UncommittedFreeEvent {
  id: string;
  attributes: Record<string, unknown>;
  trails: string[];
  event_type: string;
  created_at: number;
  /** A registered signed statement's event (its RFC 9162 leaf is made from the payload). */
  registered: boolean;
  /** Its place in the commit queue (`event_queue`), which it leaves with the commit. */
  seq: number;
}

/** The log's COMMITTED asset-free events below a new seal's size become CONFIRMED. */
export async function confirmSealedFreeEvents(
  tx: Queryable,
  tenantId: string,
  sealedSize: number,
): Promise<void> {
  await tx.query(
    "update events set confirmation_status = 'CONFIRMED' where tenant_id = $1 and confirmation_status = 'COMMITTED' and mmr_index < $2",
    [tenantId, sealedSize],
  );
}
