import type { Db, Queryable } from "./db.js";

/**
 * The log's tables, every key of which starts with the tenancy, and which hold most rows (a
 * committed record is one entry, ~2 MMR nodes and ~2 RFC 9162 nodes): hash partitions by
 * `tenant_id` keep each partition's B-trees small and let VACUUM and index builds run per
 * partition. The record tables (`asset_events`, `events`, `assets`) are not among them: their
 * ids and `seq` are unique across tenancies, which a partitioned table can only enforce with
 * the tenancy in the key (not written: it would change every `on conflict` and keyset read).
 */
export const PARTITIONED_TABLES = ["log_entries", "mmr_nodes", "tlog_nodes"] as const;

/** What `partitionLogTables` did to each table. */
export interface PartitionReport {
  table: string;
  /** `partitioned`: done now; `already`: it was partitioned before. */
  outcome: "partitioned" | "already";
  partitions: number;
  rows: number;
}

async function isPartitioned(q: Queryable, table: string): Promise<boolean> {
  const rows = await q.query<{ kind: string }>(
    "select relkind::text as kind from pg_class where oid = to_regclass($1)",
    [table],
  );
  return rows[0]?.kind === "p";
}

async function partitionCount(q: Queryable, table: string): Promise<number> {
  const rows = await q.query<{ n: number }>(
    "select count(*)::int as n from pg_inherits where inhparent = to_regclass($1)",
    [table],
  );
  return rows[0]?.n ?? 0;
}

/**
 * Moves one table's rows into a new table of `partitions` hash partitions by tenancy, in the
 * caller's transaction, and gives the new table the old one's name and index names: the
 * statements of the service do not change, and a plan that names the tenancy reads one partition.
 */
async function partitionTable(tx: Queryable, table: string, partitions: number): Promise<number> {
  const next = `${table}__partitioned`;
  await tx.query(`create table ${next} (like ${table} including all) partition by hash (tenant_id)`);
  for (let i = 0; i < partitions; i++)
    await tx.query(
      `create table ${table}_p${i} partition of ${next} for values with (modulus ${partitions}, remainder ${i})`,
    );
  const moved = await tx.query<{ n: number }>(
    `with moved as (insert into ${next} select * from ${table} returning 1) select count(*)::int as n from moved`,
  );
  const indexes = (t: string) =>
    tx.query<{ name: string; def: string }>(
      "select indexrelid::regclass::text as name, pg_get_indexdef(indexrelid) as def from pg_index where indrelid = to_regclass($1)",
      [t],
    );
  const before = await indexes(table);
  const after = await indexes(next);
  await tx.query(`drop table ${table}`);
  await tx.query(`alter table ${next} rename to ${table}`);
  // The new indexes get the old ones' names (matched by uniqueness, method and columns), so that
  // the schema reads as before and a later migration naming an index finds it.
  const shape = (def: string) =>
    `${def.startsWith("CREATE UNIQUE") ? "unique" : ""}${def.slice(def.indexOf(" USING "))}`;
  for (const old of before) {
    const same = after.find((n) => shape(n.def) === shape(old.def));
    if (same && same.name !== old.name) await tx.query(`alter index ${same.name} rename to ${old.name}`);
  }
  await tx.query(`analyze ${table}`);
  return moved[0]?.n ?? 0;
}

/**
 * Hash-partitions the log's tables by tenancy (`archivist partition`), on a database in use:
 * one transaction takes the three tables (writers wait, readers of them too, for as long as the
 * copy takes), copies every row into `partitions` partitions, and swaps the names. Run again, it
 * does nothing. A deadlock with a committer (which takes the tables in its own order) or a lock
 * wait past `lockTimeoutMs` gives up and retries, up to five times.
 */
export async function partitionLogTables(
  db: Db,
  opts: { partitions: number; lockTimeoutMs?: number },
): Promise<PartitionReport[]> {
  const { partitions } = opts;
  if (!Number.isInteger(partitions) || partitions < 2 || partitions > 1024)
    throw new RangeError(`partitions must be an integer from 2 to 1024, got ${partitions}`);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(async (tx) => {
        if (db.kind === "postgres")
          await tx.query(`set local lock_timeout = ${opts.lockTimeoutMs ?? 10_000}`);
        const todo: string[] = [];
        for (const t of PARTITIONED_TABLES) if (!(await isPartitioned(tx, t))) todo.push(t);
        if (todo.length > 0) await tx.query(`lock table ${todo.join(", ")} in access exclusive mode`);
        const report: PartitionReport[] = [];
        for (const table of PARTITIONED_TABLES) {
          if (!todo.includes(table)) {
            const rows = await tx.query<{ n: number }>(`select count(*)::int as n from ${table}`);
            report.push({
              table,
              outcome: "already",
              partitions: await partitionCount(tx, table),
              rows: rows[0]?.n ?? 0,
            });
            continue;
          }
          const rows = await partitionTable(tx, table, partitions);
          report.push({ table, outcome: "partitioned", partitions, rows });
        }
        return report;
      });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= 5 || (code !== "40P01" && code !== "55P03")) throw err;
    }
  }
}
