import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Db } from "../../src/store/drivers/db.js";
import { migrations } from "../../src/store/drivers/migrations/index.js";
import { openPglite } from "../../src/store/drivers/pglite.js";
import { openPostgres } from "../../src/store/drivers/postgres.js";

/** Admin connection of the local PostgreSQL used by the `postgres` test project. */
export const POSTGRES_ADMIN_URL =
  process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Creates a fresh, empty database for one test file; returns its URL and a dropper. */
export async function freshPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `archivist_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(
      `PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL} (${(err as Error).message}); the postgres test project needs it`,
    );
  }
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** Which engine this test project runs against (set per project in vitest.config.ts). */
export function testEngine(): "pglite" | "postgres" {
  return process.env.TEST_DB === "postgres" ? "postgres" : "pglite";
}

/**
 * A bare database (no migrations) of the project's engine: a fresh PostgreSQL database on one
 * connection, so every statement runs on it, or an in-memory PGlite. `close` also drops it.
 */
export async function bareTestDb(label: string): Promise<{ db: Db; close(): Promise<void> }> {
  if (testEngine() === "pglite") {
    const db = await openPglite(`memory://${label}`);
    return { db, close: () => db.close() };
  }
  const fresh = await freshPostgresDatabase();
  const db = await openPostgres(fresh.url, 1);
  return {
    db,
    close: async () => {
      await db.close();
      await fresh.drop();
    },
  };
}

/**
 * Brings a bare database to the schema as it was before migration `beforeId` (recorded as
 * `migrate` records them), so a test can write rows an older version wrote and then migrate.
 */
export async function migrateBefore(db: Db, beforeId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(
      "create table schema_migrations (id text primary key, applied_at timestamptz not null default now())",
    );
    for (const m of migrations.filter((m) => m.id < beforeId)) {
      for (const statement of m.sql.split(/;\s*\n/).filter((s) => s.trim())) await tx.query(statement);
      await tx.query("insert into schema_migrations (id) values ($1)", [m.id]);
    }
  });
}
