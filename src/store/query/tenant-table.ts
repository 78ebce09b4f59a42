import type { Queryable } from "../drivers/db.js";
import { anyOf, keysetSource, type RowSource } from "./row-source.js";
import { firstRow, Where } from "./sql.js";

/** A row of a tenancy's collection, keyed by (tenant_id, id) and ordered by seq. */
interface TenantRow {
  seq: number;
  id: string;
  tenant_id: string;
}

/** How a column's value is written: a jsonb column's as JSON text, cast to jsonb in the statement. */
interface ColumnCodec {
  value(column: string, v: unknown): unknown;
  cast(column: string, n: number): string;
}

function columnCodec(jsonColumns: readonly string[] = []): ColumnCodec {
  const json = new Set<string>(jsonColumns);
  return {
    value: (column, v) => (json.has(column) && v !== null ? JSON.stringify(v) : v),
    cast: (column, n) => (json.has(column) ? `$${n}::jsonb` : `$${n}`),
  };
}

/**
 * The `set` list of an update writing the fields a patch gives (null clears one; undefined leaves
 * it), each value appended to `params` so its placeholder follows the ones already there.
 */
function patchSets(
  codec: ColumnCodec,
  patchable: readonly string[],
  patch: Readonly<Record<string, unknown>>,
  params: unknown[],
): string[] {
  const sets: string[] = [];
  for (const c of patchable) {
    const v = patch[c];
    if (v === undefined) continue;
    params.push(codec.value(c, v));
    sets.push(`${c} = ${codec.cast(c, params.length)}`);
  }
  return sets;
}

/**
 * The statements every tenancy-scoped collection (applications, locations, TLS CA certificates,
 * access and compliance policies, subjects, invites, members) shares: read one, list, count,
 * insert, update the fields a patch gives, delete. A collection uses those it has. Table and column
 * names are the module's constants, never input; values are always parameters.
 */
export function tenantTable<R extends TenantRow, K extends keyof R & string>(spec: {
  table: string;
  /** Every column, `seq` first: the select list and, less `seq`, the insert's. */
  columns: readonly (keyof R & string)[];
  /** Columns stored as jsonb (written as JSON text). */
  json?: readonly (keyof R & string)[];
  /** The columns a patch may change; any other key of a patch is ignored. */
  patchable?: readonly K[];
}) {
  const { table } = spec;
  const select = spec.columns.join(", ");
  const { value, cast } = columnCodec(spec.json);
  const written = spec.columns.filter((c) => c !== "seq");
  /** The first row matching `where` (the collection's own condition; its values in `params`). */
  const one = (db: Queryable, where: string, params: unknown[]): Promise<R | undefined> =>
    firstRow<R>(db, `select ${select} from ${table} where ${where}`, params);
  const get = (db: Queryable, tenantId: string, id: string): Promise<R | undefined> =>
    one(db, "tenant_id = $1 and id = $2", [tenantId, id]);
  /** The tenancy's rows in seq order, narrowed by the conditions `narrow` adds after `tenant_id = $1`. */
  const rows = (db: Queryable, tenantId: string, narrow?: (w: Where) => unknown): RowSource<R> => {
    const w = new Where([tenantId]).and("tenant_id = $1");
    narrow?.(w);
    return keysetSource(db, table, select, w);
  };
  return {
    /** The select list (`seq, id, …`), for the collection's own queries. */
    select,
    one,
    get,
    rows,

    /** The tenancy's rows, in seq order, optionally only those with one of the display names. */
    byDisplayName(db: Queryable, tenantId: string, f: { displayName?: string[] | undefined }): RowSource<R> {
      return rows(db, tenantId, (w) => anyOf(w, "display_name", f.displayName));
    },

    /** Every row of the tenancy, oldest first. */
    all(db: Queryable, tenantId: string): Promise<R[]> {
      return db.query<R>(`select ${select} from ${table} where tenant_id = $1 order by seq`, [tenantId]);
    },

    async count(db: Queryable, tenantId: string): Promise<number> {
      const sql = `select count(*)::int as n from ${table} where tenant_id = $1`;
      return (await db.query<{ n: number }>(sql, [tenantId]))[0]?.n ?? 0;
    },

    async insert(db: Queryable, row: Omit<R, "seq">): Promise<R> {
      const values = written.map((c, i) => cast(c, i + 1)).join(", ");
      const rows = await db.query<R>(
        `insert into ${table} (${written.join(", ")}) values (${values}) returning ${select}`,
        written.map((c) => value(c, (row as Record<string, unknown>)[c])),
      );
      return rows[0] as R;
    },

    /** Writes the fields the patch gives (null clears one); undefined when the row is not in that tenancy. */
    async update(
      db: Queryable,
      tenantId: string,
      id: string,
      patch: Partial<Pick<R, K>>,
    ): Promise<R | undefined> {
      const params: unknown[] = [tenantId, id];
      const sets = patchSets({ value, cast }, spec.patchable ?? [], patch, params);
      if (sets.length === 0) return get(db, tenantId, id);
      const sql = `update ${table} set ${sets.join(", ")} where tenant_id = $1 and id = $2 returning ${select}`;
      return (await db.query<R>(sql, params))[0];
    },

    async remove(db: Queryable, tenantId: string, id: string): Promise<boolean> {
      const sql = `delete from ${table} where tenant_id = $1 and id = $2 returning id`;
      return (await db.query(sql, [tenantId, id])).length > 0;
    },
  };
}
