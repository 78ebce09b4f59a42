import type { Db, Queryable } from "../drivers/db.js";

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

/**
 * What a start finds in `signing_keys`: its rows as they are (whoever wrote them chose their
 * columns: nothing is assumed of their shape until a key is adopted), and whether the move out of
 * the database is already recorded.
 */
export interface LegacyTable {
  rows: Array<Record<string, unknown>>;
  /** `031-keys-out-of-database` is in schema_migrations: an earlier start moved the keys. */
  recorded: boolean;
}

async function legacyTable(q: Queryable): Promise<boolean> {
  const rows = await q.query<{ t: string | null }>("select to_regclass('signing_keys')::text as t");
  return rows[0]?.t !== null && rows[0]?.t !== undefined;
}

/**
 * The `signing_keys` table handed to `decide`, in one transaction under the migrations' lock (a
 * second process starting at once waits, then finds no table). `decide` answers `"drop"` once it
 * has taken what it would: the table is dropped and the upgrade recorded in that transaction;
 * `"keep"` leaves the table as it is. `decide` throwing leaves it as it was too. Undefined when
 * there is no table.
 */
export async function takeLegacyKeys(
  db: Db,
  decide: (table: LegacyTable) => Promise<"drop" | "keep">,
): Promise<(LegacyTable & { dropped: boolean }) | undefined> {
  if (!(await legacyTable(db))) return undefined;
  return db.transaction(async (tx) => {
    await tx.query("select pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    if (!(await legacyTable(tx))) return undefined;
    const recorded =
      (await tx.query("select 1 from schema_migrations where id = $1", [KEYS_OUT_OF_DATABASE])).length > 0;
    // `select *`: a table planted with other columns is still read, so it can be refused by name.
    const rows = await tx.query<Record<string, unknown>>("select * from signing_keys");
    const table = { rows, recorded };
    if ((await decide(table)) === "keep") return { ...table, dropped: false };
    await tx.query("drop table signing_keys");
    await tx.query("insert into schema_migrations (id) values ($1) on conflict do nothing", [
      KEYS_OUT_OF_DATABASE,
    ]);
    return { ...table, dropped: true };
  });
}
