import { createHash } from "node:crypto";
import pg from "pg";
import type { Deployment } from "./service.js";

/** Something that runs SQL: a pg client or PGlite. */
interface Sql {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/** Rows of a seeded kind: the statement that inserts rows `$2..$3` copied from template `$1`, and the table it fills. */
interface SeedKind {
  insert: (db: Sql) => Promise<string>;
  table: string;
}

// Copies a real event (made through the API) N times with generate_series: one statement per
// chunk, so a million rows take a minute, not the hours the API would need at a few thousand/s.
// Seeded rows are COMMITTED without log entries: the list path never reads the log, and STORED
// rows would send the committer to work during the measurement.
const ASSET_EVENTS = `insert into asset_events (id, asset_id, tenant_id, operation, behaviour, event_attributes,
  asset_attributes, timestamp_declared, timestamp_accepted, timestamp_committed, principal_declared,
  principal_accepted, confirmation_status, proof_mechanism, public)
select gen_random_uuid(), e.asset_id, e.tenant_id, e.operation, e.behaviour,
  jsonb_build_object('arc_display_type', 'vcon_created', 'bench_kind', 'k' || (g % 10), 'bench_n', g::text),
  '{}'::jsonb, e.timestamp_declared, e.timestamp_accepted + g * interval '1 ms', e.timestamp_accepted + g * interval '1 ms',
  e.principal_declared, e.principal_accepted, 'COMMITTED', e.proof_mechanism, e.public
from asset_events e, generate_series($2::bigint, $3::bigint) g where e.id = $1`;

// Asset-free events as the afe scenario makes them: every one on the busy trail of the template
// and on one vCon trail of its own. Where the store keeps per-trail counts (migration 028) the
// same statement adds the seeded rows to them, as the store's own insert does.
const FREE_EVENTS = `insert into events (id, tenant_id, attributes, trails, event_type, created_by, created_at, confirmation_status)
select gen_random_uuid(), e.tenant_id,
  jsonb_build_object('arc_display_type', 'vcon_created', 'subject', 'vcon://seed-' || g, 'payload', e.attributes ->> 'payload'),
  array[e.trails[1], 'vcon://seed-' || g], e.event_type, e.created_by, e.created_at + g, 'COMMITTED'
from events e, generate_series($2::bigint, $3::bigint) g where e.id = $1`;
/**
 * An insert of asset-free events that adds its rows to the per-trail counts, as the store's own
 * insert does, and, with `queued`, to the committer's queue (migration 052) as STORED ones are.
 */
const withTrailCounts = (
  insert: string,
  queued = false,
) => `with added as (${insert} returning tenant_id, trails, seq, id)${
  queued
    ? `, queued as (insert into event_queue (tenant_id, seq, id) select tenant_id, seq, id from added)`
    : ""
}
insert into event_trail_counts (tenant_id, trail, n)
select tenant_id, trail, count(*) from (
  select tenant_id, unnest(trails) as trail from added
  union all select tenant_id, '' from added
) t group by tenant_id, trail order by tenant_id, trail
on conflict (tenant_id, trail) do update set n = event_trail_counts.n + excluded.n`;
const FREE_EVENTS_COUNTED = withTrailCounts(FREE_EVENTS);

const SEED_ASSET_EVENTS: SeedKind = { insert: async () => ASSET_EVENTS, table: "asset_events" };
export const SEED_FREE_EVENTS: SeedKind = {
  insert: async (db) => {
    const r = (await db.query("select to_regclass('event_trail_counts') is not null as counted")) as {
      rows: Array<{ counted: boolean }>;
    };
    return r.rows[0]?.counted ? FREE_EVENTS_COUNTED : FREE_EVENTS;
  },
  table: "events",
};

/**
 * Statements made from asset events (the vCon template's subject and payload): `subjects`
 * phone numbers (`tel:+1555<k>`, ten versions each at the default size) and a payload hash of
 * its own per row, `sha256('bench-<g>')`, so a search can name one without asking the database.
 */
export function seedStatements(subjects: number): SeedKind {
  const m = Math.max(1, Math.floor(subjects));
  const sql = `insert into asset_events (id, asset_id, tenant_id, operation, behaviour, event_attributes,
  asset_attributes, timestamp_declared, timestamp_accepted, timestamp_committed, principal_declared,
  principal_accepted, confirmation_status, proof_mechanism, public)
select gen_random_uuid(), e.asset_id, e.tenant_id, e.operation, e.behaviour,
  e.event_attributes || jsonb_build_object('subject', 'tel:+1555' || (g % ${m}), 'payload', encode(sha256(('bench-' || g)::bytea), 'hex')),
  '{}'::jsonb, e.timestamp_declared, e.timestamp_accepted + g * interval '1 ms', e.timestamp_accepted + g * interval '1 ms',
  e.principal_declared, e.principal_accepted, 'COMMITTED', e.proof_mechanism, e.public
from asset_events e, generate_series($2::bigint, $3::bigint) g where e.id = $1`;
  return { insert: async () => sql, table: "asset_events" };
}

async function fill(
  db: Sql,
  embedded: boolean,
  kind: SeedKind,
  template: string,
  n: number,
  progress: (done: number) => void,
): Promise<void> {
  const chunk = 100_000;
  const insert = await kind.insert(db);
  // Inserting into every index row by row (the attribute GIN index above all) was most of the
  // seeding: 10M rows took over an hour on a loaded machine. The table's indexes that back no
  // constraint are dropped for the inserts and built again after, one sorted build each.
  const indexes = await plainIndexes(db, kind.table);
  for (const ix of indexes) await db.query(`drop index ${ix.name}`);
  const live = await liveStatistics(db, kind.table, embedded);
  try {
    for (let from = 1; from <= n; from += chunk) {
      const to = Math.min(n, from + chunk - 1);
      await db.query(insert, [template, from, to]);
      await live.grew(to, n);
      progress(to);
    }
  } finally {
    await db.query("set maintenance_work_mem = '256MB'");
    for (const ix of indexes) await db.query(ix.def);
  }
}

/**
 * Leaves the table's statistics as a live service has them after a burst of writes, not fresh
 * (issue 59: plans that only fresh statistics save must show in the bench). On PostgreSQL the
 * table is analysed once, when a tenth of the rows are in (autovacuum's last visit before the
 * burst), and autovacuum is off for it from then on (the deployment's database is dropped after
 * the scenario); PGlite runs no autovacuum, so a live embedded service's tables are never
 * analysed, and neither is this one.
 */
async function liveStatistics(
  db: Sql,
  table: string,
  embedded: boolean,
): Promise<{ grew(done: number, n: number): Promise<void> }> {
  if (!embedded) await db.query(`alter table ${table} set (autovacuum_enabled = off)`);
  let analysed = embedded;
  return {
    async grew(done, n) {
      if (analysed || done < n / 10) return;
      analysed = true;
      await db.query(`analyze ${table}`);
    },
  };
}

/**
 * The table's indexes that back no constraint (primary keys and unique constraints stay), with
 * their definitions. The partial indexes of STORED rows stay too: seeded rows are COMMITTED, so
 * they cost the inserts nothing, and without them the committer's sweep (which asks every second
 * whether a tenancy has STORED rows) scanned the whole growing table, several times at once,
 * beside the seeding (10M asset-free events: ~5,000 rows/s).
 */
async function plainIndexes(db: Sql, table: string): Promise<Array<{ name: string; def: string }>> {
  const r = (await db.query(
    `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as def
       from pg_index i
      where i.indrelid = $1::regclass
        and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
        and coalesce(pg_get_expr(i.indpred, i.indrelid), '') not like '%''STORED''%'`,
    [table],
  )) as { rows: Array<{ name: string; def: string }> };
  return r.rows;
}

/**
 * Seeds n rows copied from the event `template` straight into the deployment's database: over
 * its DATABASE_URL while it runs, or, for PGlite (one process owns the files), with the service
 * stopped. Returns the milliseconds the inserts took (not the restart).
 */
export async function seedEvents(
  d: Deployment,
  template: string,
  n: number,
  progress: (done: number) => void,
  kind: SeedKind = SEED_ASSET_EVENTS,
): Promise<number> {
  const t0 = performance.now();
  if (d.db) {
    const client = new pg.Client({ connectionString: d.db.url });
    await client.connect();
    try {
      await fill(client, false, kind, template, n, progress);
    } finally {
      await client.end();
    }
    return performance.now() - t0;
  }
  await d.stop();
  const { PGlite } = await import("@electric-sql/pglite");
  const db = await PGlite.create(`${d.dataDir}/pgdata`);
  let ms: number;
  try {
    const t1 = performance.now();
    await fill(db, true, kind, template, n, progress);
    ms = performance.now() - t1;
  } finally {
    await db.close();
  }
  await d.start();
  return ms;
}

/**
 * Asset-free events STORED, for the committer to log (the verifiable index reads log entries, not
 * rows): `perVcon` in a row on one vCon each, `vcon://<md5 of the group as a uuid>`, and their
 * trail counts as the store keeps them.
 */
export function seedStoredVconEvents(perVcon: number): SeedKind {
  const vcon = `'vcon://' || md5('vindex-bench-' || (g / ${Math.max(1, Math.floor(perVcon))}))::uuid::text`;
  const insert = `insert into events (id, tenant_id, attributes, trails, event_type, created_by, created_at, confirmation_status)
select gen_random_uuid(), e.tenant_id,
  jsonb_build_object('arc_display_type', 'vcon_created', 'subject', ${vcon}, 'payload', e.attributes ->> 'payload'),
  array[${vcon}], e.event_type, e.created_by, e.created_at + g, 'STORED'
from events e, generate_series($2::bigint, $3::bigint) g where e.id = $1`;
  return {
    insert: async (db) => {
      const r = (await db.query("select to_regclass('event_queue') is not null as queued")) as {
        rows: Array<{ queued: boolean }>;
      };
      return withTrailCounts(insert, r.rows[0]?.queued);
    },
    table: "events",
  };
}

/** The uuid of the k-th vCon `seedStoredVconEvents` files events under (as PostgreSQL's md5(…)::uuid writes it). */
export function seededVcon(k: number): string {
  const h = createHash("md5").update(`vindex-bench-${k}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
