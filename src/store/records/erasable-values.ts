import { commitmentOf } from "../../formats/record/erasable.js";
import {
  ERASABLE_MAPS,
  type ErasableMap,
  type ErasableMember,
} from "../../formats/record/erasable-member.js";
import type { Queryable } from "../drivers/db.js";
import { plainArrayParam } from "../query/bulk-params.js";

/** A value committed by a record, with its salt (base64), as the write path stores it. */
export interface ErasableValue {
  commitment: string;
  value: string;
  salt: string;
}

/** What the store holds of a commitment: its value and salt, or who erased them. */
interface ErasableRow {
  commitment: string;
  tenant_id: string;
  value: string | null;
  salt: string | null;
  erased_at: Date | null;
  erased_by: string | null;
  erasure_basis: string | null;
  erasure_record: string | null;
}

const ERASABLE_COLUMNS =
  "commitment, tenant_id, value, salt, erased_at, erased_by, erasure_basis, erasure_record";

/** A record as a group inserts it, carrying the values its erasable attributes commit to. */
export interface CarriesErasables {
  id: string;
  tenant_id: string;
  erasables?: readonly ErasableValue[] | undefined;
}

/**
 * The erasable values of a group's records as the columns of one bulk insert, one parameter each
 * (`bulk-params.ts`; a value or a salt is any text, so those two go as arrays); undefined when no
 * record carries any, as for nearly every group, whose insert then has no clause for them.
 */
export function erasableColumns(records: readonly CarriesErasables[]): unknown[] | undefined {
  if (!records.some((r) => r.erasables?.length)) return undefined;
  const commitments: string[] = [];
  const tenants: string[] = [];
  const values: string[] = [];
  const salts: string[] = [];
  const owners: string[] = [];
  for (const r of records)
    for (const v of r.erasables ?? []) {
      commitments.push(v.commitment);
      tenants.push(r.tenant_id);
      values.push(v.value);
      salts.push(v.salt);
      owners.push(r.id);
    }
  return [plainArrayParam(commitments), plainArrayParam(tenants), values, salts, plainArrayParam(owners)];
}

/**
 * The clause of a record insert's `with` that inserts the values of `erasableColumns`, its
 * parameters from `$first`: only those of the records the clause `written` returns (by `id`), so
 * that a record the statement does not write leaves no value, and a record is never stored
 * without its values (one statement, one transaction).
 */
export function erasablesClause(first: number, written: string): string {
  const [c, t, v, s, r] = [0, 1, 2, 3, 4].map((i) => `$${first + i}`);
  return `erasables as (insert into erasable_values (commitment, tenant_id, value, salt)
       select c, t, v, s from unnest(${c}::text[], ${t}::uuid[], ${v}::text[], ${s}::text[], ${r}::uuid[]) as x(c, t, v, s, r)
       where r in (select id from ${written}))`;
}

/** A record row whose attribute maps may hold commitments: an asset event's, an asset-free event's. */
type Holder = { tenant_id: string; erasable?: ErasableMember | undefined } & Partial<
  Record<ErasableMap, Record<string, unknown>>
>;

type Entry = NonNullable<ErasableMember[ErasableMap]>[string];

/** Each committed attribute of the row that `entryOf` knows, by map; undefined when none is. */
function memberOf(
  row: Holder,
  entryOf: (commitment: string) => Entry | undefined,
): ErasableMember | undefined {
  let member: ErasableMember | undefined;
  for (const map of ERASABLE_MAPS) {
    const attrs = row[map];
    if (!attrs) continue;
    for (const name in attrs) {
      const c = commitmentOf(attrs[name]);
      const entry = c === undefined ? undefined : entryOf(c);
      if (!entry) continue;
      member ??= {};
      const entries = member[map] ?? {};
      entries[name] = entry;
      member[map] = entries;
    }
  }
  return member;
}

/** The commitments the rows' attributes hold; undefined when they hold none (nearly always). */
function commitmentsOf(rows: readonly Holder[]): string[] | undefined {
  let wanted: Set<string> | undefined;
  for (const r of rows)
    for (const map of ERASABLE_MAPS) {
      const attrs = r[map];
      if (!attrs) continue;
      for (const name in attrs) {
        const c = commitmentOf(attrs[name]);
        if (c === undefined) continue;
        wanted ??= new Set();
        wanted.add(c);
      }
    }
  return wanted && [...wanted];
}

function entryOfRow(row: ErasableRow): Entry {
  if (row.value !== null && row.salt !== null) return { disclosed: { value: row.value, salt: row.salt } };
  return {
    erased: {
      by: row.erased_by ?? "",
      at: row.erased_at ? new Date(row.erased_at).toISOString() : "",
      basis: row.erasure_basis ?? "",
      record: row.erasure_record ?? "",
    },
  };
}

/**
 * Adds to each record row that commits erasable attributes its `erasable` member: each value and
 * salt, or who erased them, when, why and the erasure's record. One query for all the rows (a
 * page); rows without commitments cost a scan of their attribute values and no query. A
 * commitment is a key of the whole table: its row counts only for a record of its own tenancy.
 */
export async function withErasables<R extends Holder>(db: Queryable, rows: R[]): Promise<R[]> {
  const wanted = commitmentsOf(rows);
  if (!wanted) return rows;
  const stored = await db.query<ErasableRow>(
    `select ${ERASABLE_COLUMNS} from erasable_values where commitment = any($1::text[])`,
    [plainArrayParam(wanted)],
  );
  const byCommitment = new Map(stored.map((s) => [s.commitment, s]));
  for (const r of rows) {
    const member = memberOf(r, (c) => {
      const s = byCommitment.get(c);
      return s && s.tenant_id === r.tenant_id ? entryOfRow(s) : undefined;
    });
    if (member) r.erasable = member;
  }
  return rows;
}

/** A row just written with the values it carried: its member, those values disclosed, with no read. */
export function withWrittenErasables<R extends Holder>(row: R, values: readonly ErasableValue[]): R {
  const byCommitment = new Map(values.map((v) => [v.commitment, v]));
  const member = memberOf(row, (c) => {
    const v = byCommitment.get(c);
    return v && { disclosed: { value: v.value, salt: v.salt } };
  });
  if (member) row.erasable = member;
  return row;
}

/** The tenancy's stored values (or erasures) of these commitments. */
export async function erasableRows(
  db: Queryable,
  tenantId: string,
  commitments: string[],
): Promise<ErasableRow[]> {
  if (commitments.length === 0) return [];
  return db.query<ErasableRow>(
    `select ${ERASABLE_COLUMNS} from erasable_values where tenant_id = $1 and commitment = any($2::text[])`,
    [tenantId, commitments],
  );
}

/**
 * Erases the values of these commitments: value and salt deleted, who, when, why and the erasure's
 * record kept. Already erased ones are left as they are. Returns the commitments erased now.
 */
export async function eraseValues(
  db: Queryable,
  tenantId: string,
  commitments: string[],
  erasure: { by: string; basis: string; record: string },
): Promise<string[]> {
  if (commitments.length === 0) return [];
  const rows = await db.query<{ commitment: string }>(
    `update erasable_values
        set value = null, salt = null, erased_at = now(), erased_by = $3, erasure_basis = $4, erasure_record = $5
      where tenant_id = $1 and commitment = any($2::text[]) and erased_at is null
      returning commitment`,
    [tenantId, commitments, erasure.by, erasure.basis, erasure.record],
  );
  return rows.map((r) => r.commitment);
}

/** The attribute names a tenancy makes erasable (none when it never set a policy). */
export async function getErasurePolicy(db: Queryable, tenantId: string): Promise<string[]> {
  const rows = await db.query<{ attributes: string[] }>(
    "select attributes from erasure_policies where tenant_id = $1",
    [tenantId],
  );
  return rows[0]?.attributes ?? [];
}

export async function putErasurePolicy(db: Queryable, tenantId: string, attributes: string[]): Promise<void> {
  await db.query(
    `insert into erasure_policies (tenant_id, attributes) values ($1, $2::text[])
     on conflict (tenant_id) do update set attributes = $2::text[], updated_at = now()`,
    [tenantId, attributes],
  );
}

/**
 * Serialises, until the transaction ends, the erasures of one subject of a tenancy (a vCon, a
 * record): a second erasure then reads what the first erased, and records nothing it did not erase.
 */
export async function lockErasure(tx: Queryable, tenantId: string, subject: string): Promise<void> {
  await tx.query("select pg_advisory_xact_lock(hashtextextended($1, 7247))", [
    `erasure:${tenantId}:${subject}`,
  ]);
}
