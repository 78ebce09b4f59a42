import pg from "pg";
import type { Deployment } from "./service.js";

/** Something that runs SQL: a pg client or PGlite. */
interface Sql {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

// Copies a real event (made through the API) N times with generate_series: one statement per
// chunk, so a million rows take a minute, not the hours the API would need at a few thousand/s.
// Seeded rows are COMMITTED without log entries: the list path never reads the log, and STORED
// rows would send the committer to work during the measurement.
const INSERT = `insert into asset_events (id, asset_id, tenant_id, operation, behaviour, event_attributes,
  asset_attributes, timestamp_declared, timestamp_accepted, timestamp_committed, principal_declared,
  principal_accepted, confirmation_status, proof_mechanism, public)
select gen_random_uuid(), e.asset_id, e.tenant_id, e.operation, e.behaviour,
  jsonb_build_object('arc_display_type', 'vcon_created', 'bench_kind', 'k' || (g % 10), 'bench_n', g::text),
  '{}'::jsonb, e.timestamp_declared, e.timestamp_accepted + g * interval '1 ms', e.timestamp_accepted + g * interval '1 ms',
  e.principal_declared, e.principal_accepted, 'COMMITTED', e.proof_mechanism, e.public
from asset_events e, generate_series($2::bigint, $3::bigint) g where e.id = $1`;

async function fill(db: Sql, template: string, n: number, progress: (done: number) => void): Promise<void> {
  const chunk = 100_000;
  for (let from = 1; from <= n; from += chunk) {
    const to = Math.min(n, from + chunk - 1);
    await db.query(INSERT, [template, from, to]);
    progress(to);
  }
  // A real database would have autovacuum's statistics by now; PGlite runs no autovacuum.
  await db.query("analyze asset_events");
}

/**
 * Seeds n events copied from `template` straight into the deployment's database: over its
 * DATABASE_URL while it runs, or, for PGlite (one process owns the files), with the service stopped.
 * Returns the milliseconds the inserts and ANALYZE took (not the restart).
 */
export async function seedEvents(
  d: Deployment,
  template: string,
  n: number,
  progress: (done: number) => void,
): Promise<number> {
  const t0 = performance.now();
  if (d.db) {
    const client = new pg.Client({ connectionString: d.db.url });
    await client.connect();
    try {
      await fill(client, template, n, progress);
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
    await fill(db, template, n, progress);
    ms = performance.now() - t1;
  } finally {
    await db.close();
  }
  await d.start();
  return ms;
}
