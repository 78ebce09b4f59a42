import type { Db, Queryable } from "../drivers/db.js";

/**
 * The tables that grow with the records, every row of which carries its tenancy: the records
 * themselves (`assets`, `asset_events`, `events`: asset-free events and registered statements,
 * `blobs`: uploaded files' metadata) and the log's (`log_entries`, `mmr_nodes`, `tlog_nodes`: a
 * committed record is one entry, ~2 MMR nodes and ~2 RFC 9162 nodes). Hash partitions by
 * `tenant_id` keep each partition's B-trees small and let VACUUM and index builds run per
 * partition. In the order the writers take them (records before the log), so that taking them
 * all seldom deadlocks with a writer. Left out, and why: `asset_log_heads` (one row per asset)
 * has no tenancy column; `asset_event_queue` and `event_queue` hold only what waits for the
 * committer; `blob_contents` is shared across tenancies by content hash; the rest grow with
 * tenancies, members or policies, not with records.
 */
export const PARTITIONED_TABLES = [
  "assets",
  "asset_events",
  "events",
  "blobs",
  "log_entries",
  "mmr_nodes",
  "tlog_nodes",
] as const;

/** What `partitionByTenancy` did to each table. */
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

interface IndexRow {
  name: string;
  def: string;
  primary: boolean;
  unique: boolean;
  /** Whether `tenant_id` is one of the index's key columns. */
  tenanted: boolean;
  /** The key columns, `''` for each expression. */
  columns: string[];
}

const indexesOf = (tx: Queryable, table: string) =>
  tx.query<IndexRow>(
    `select c.relname as name, pg_get_indexdef(i.indexrelid) as def, i.indisprimary as primary, i.indisunique as unique,
       exists (select 1 from pg_attribute a where a.attrelid = i.indrelid and a.attname = 'tenant_id' and a.attnum = any(i.indkey::int2[])) as tenanted,
       coalesce((select array_agg(coalesce(a.attname::text, '') order by k.n) from unnest(i.indkey::int2[]) with ordinality k(attnum, n)
         left join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum), '{}') as columns
     from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = to_regclass($1) order by c.relname`,
    [table],
  );

/**
 * The new table's indexes, each made under a temporary name (`<old>__p`) that takes the old
 * name once the old table is gone. A partitioned table enforces a unique key only with the
 * partition column in it, so a unique key without `tenant_id` gets it as its last column: the
 * primary key `(id)` becomes `(id, tenant_id)` and `unique (seq)` becomes `unique (seq,
 * tenant_id)`. Last, not first: each key still serves every look-up it served (by id alone, by
 * `seq` alone), and no second index is written per row. Both stay unique across tenancies by
 * construction, not by the key: ids are random UUIDs the service makes (never a client's), and
 * `seq` is drawn from one sequence for the whole table. No statement relies on the narrower
 * keys: none writes `on conflict` on these tables, and no foreign key references them
 * (017-record-keys dropped the last ones; `partitionTable` refuses a table one still references).
 */
async function copyIndexes(tx: Queryable, table: string, next: string): Promise<Array<[string, string]>> {
  const renames: Array<[string, string]> = [];
  for (const ix of await indexesOf(tx, table)) {
    const tmp = `${ix.name}__p`;
    renames.push([tmp, ix.name]);
    if (!ix.unique || ix.tenanted) {
      await tx.query(
        `create ${ix.unique ? "unique " : ""}index ${tmp} on ${next}${ix.def.slice(ix.def.indexOf(" USING "))}`,
      );
      continue;
    }
    if (ix.columns.includes("") || / WHERE /.test(ix.def))
      throw new Error(
        `${table}: the unique index ${ix.name} cannot take the tenancy into its key (${ix.def})`,
      );
    await tx.query(
      `alter table ${next} add constraint ${tmp} ${ix.primary ? "primary key" : "unique"} (${[...ix.columns, "tenant_id"].join(", ")})`,
    );
  }
  return renames;
}

/**
 * Moves one table's rows into a new table of `partitions` hash partitions by tenancy, in the
 * caller's transaction, and gives the new table the old one's name, index names, sequences and
 * foreign keys: the statements of the service do not change, and a plan that names the tenancy
 * reads one partition.
 */
async function partitionTable(tx: Queryable, table: string, partitions: number): Promise<number> {
  const referenced = await tx.query<{ name: string }>(
    "select conname::text as name from pg_constraint where contype = 'f' and confrelid = to_regclass($1)",
    [table],
  );
  if (referenced.length > 0)
    throw new Error(
      `${table} is referenced by foreign keys (${referenced.map((r) => r.name).join(", ")}): a key referencing a partitioned table must include tenant_id`,
    );
  const next = `${table}__partitioned`;
  await tx.query(
    `create table ${next} (like ${table} including all excluding indexes) partition by hash (tenant_id)`,
  );
  for (let i = 0; i < partitions; i++)
    await tx.query(
      `create table ${table}_p${i} partition of ${next} for values with (modulus ${partitions}, remainder ${i})`,
    );
  const renames = await copyIndexes(tx, table, next);
  const foreign = await tx.query<{ name: string; def: string }>(
    "select conname::text as name, pg_get_constraintdef(oid) as def from pg_constraint where contype = 'f' and conrelid = to_regclass($1)",
    [table],
  );
  for (const f of foreign) await tx.query(`alter table ${next} add constraint ${f.name} ${f.def}`);
  // A `bigserial`'s sequence belongs to its column and would go with the old table: it moves to
  // the new one, so numbering carries on where it was.
  const sequences = await tx.query<{ seq: string; col: string }>(
    `select s.objid::regclass::text as seq, a.attname::text as col from pg_depend s
       join pg_attribute a on a.attrelid = s.refobjid and a.attnum = s.refobjsubid
     where s.classid = 'pg_class'::regclass and s.refobjid = to_regclass($1) and s.deptype = 'a'
       and (select relkind from pg_class where oid = s.objid) = 'S'`,
    [table],
  );
  for (const s of sequences) await tx.query(`alter sequence ${s.seq} owned by ${next}.${s.col}`);
  const moved = await tx.query<{ n: number }>(
    `with moved as (insert into ${next} select * from ${table} returning 1) select count(*)::int as n from moved`,
  );
  await tx.query(`drop table ${table}`);
  await tx.query(`alter table ${next} rename to ${table}`);
  for (const [from, to] of renames) await tx.query(`alter index ${from} rename to ${to}`);
  await tx.query(`analyze ${table}`);
  return moved[0]?.n ?? 0;
}

/**
 * Hash-partitions the record and log tables by tenancy (`archivist partition`), on a database
 * with data in it: one transaction takes every table (writers wait, readers of them too, for as
 * long as the copy takes), copies every row into `partitions` partitions, and swaps the names.
 * Run again, it does nothing. A deadlock with a committer (which takes the tables in its own order) or a lock
 * wait past `lockTimeoutMs` gives up and retries, up to five times.
 */
export async function partitionByTenancy(
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
