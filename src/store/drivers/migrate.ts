import type { Db } from "./db.js";
import { migrations } from "./migrations/index.js";

// Any number of processes may start at once against one PostgreSQL; the advisory
// lock makes exactly one of them apply the pending migrations.
const MIGRATION_LOCK = 7_245_001;

/** Applies every migration not yet recorded, in order, in one transaction. */
export async function migrate(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query("select pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await tx.query(
      "create table if not exists schema_migrations (id text primary key, applied_at timestamptz not null default now())",
    );
    const done = new Set(
      (await tx.query<{ id: string }>("select id from schema_migrations")).map((r) => r.id),
    );
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      for (const statement of m.sql.split(/;\s*\n/).filter((s) => s.trim())) await tx.query(statement);
      await tx.query("insert into schema_migrations (id) values ($1)", [m.id]);
    }
  });
}
