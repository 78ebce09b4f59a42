import type { Db, Queryable } from "./db.js";

// The same lock the migrations take: one process moves the keys, the others wait and find none.
const MIGRATION_LOCK = 7_245_001;

/** Recorded in schema_migrations once the keys are out of the database (the table is dropped). */
const KEYS_OUT_OF_DATABASE = "031-keys-out-of-database";

/** A row of `signing_keys`, the table an earlier version kept every private key in. */
export interface LegacyKeyRow {
  purpose: string;
  kid: string;
  alg: string;
  private_pkcs8: string;
  public_jwk: Record<string, unknown>;
  created_at: Date | string;
}

async function legacyTable(q: Queryable): Promise<boolean> {
  const rows = await q.query<{ t: string | null }>("select to_regclass('signing_keys')::text as t");
  return rows[0]?.t !== null && rows[0]?.t !== undefined;
}

/**
 * The `signing_keys` rows handed to `adopt`, then the table dropped and the upgrade recorded, in
 * one transaction under the migrations' lock (a second process starting at once waits, then
 * finds no table). `adopt` throwing leaves the table as it was. The rows adopted; none when the
 * table is gone.
 */
export async function takeLegacyKeys(
  db: Db,
  adopt: (rows: LegacyKeyRow[]) => Promise<void>,
): Promise<LegacyKeyRow[]> {
  if (!(await legacyTable(db))) return [];
  return db.transaction(async (tx) => {
    await tx.query("select pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    if (!(await legacyTable(tx))) return [];
    const rows = await tx.query<LegacyKeyRow>(
      "select purpose, kid, alg, private_pkcs8, public_jwk, created_at from signing_keys order by purpose",
    );
    await adopt(rows);
    await tx.query("drop table signing_keys");
    await tx.query("insert into schema_migrations (id) values ($1) on conflict do nothing", [
      KEYS_OUT_OF_DATABASE,
    ]);
    return rows;
  });
}
