import type { Queryable } from "../drivers/db.js";

/** A value committed by a record, with its salt (base64), as the write path stores it. */
export interface ErasableValue {
  commitment: string;
  value: string;
  salt: string;
}

/** What the store holds of a commitment: its value and salt, or who erased them. */
export interface ErasableRow {
  commitment: string;
  value: string | null;
  salt: string | null;
  erased_at: Date | null;
  erased_by: string | null;
  erasure_basis: string | null;
  erasure_record: string | null;
}

/** Stores the values an event's attributes commit to (before the event is written). */
export async function putErasableValues(
  db: Queryable,
  tenantId: string,
  values: readonly ErasableValue[],
): Promise<void> {
  if (values.length === 0) return;
  await db.query(
    `insert into erasable_values (commitment, tenant_id, value, salt)
     select c, $1, v, s from unnest($2::text[], $3::text[], $4::text[]) as x(c, v, s)`,
    [tenantId, values.map((v) => v.commitment), values.map((v) => v.value), values.map((v) => v.salt)],
  );
}

/** Drops values whose event was refused: no record commits to them. */
export async function dropErasableValues(
  db: Queryable,
  tenantId: string,
  commitments: readonly string[],
): Promise<void> {
  if (commitments.length === 0) return;
  await db.query("delete from erasable_values where tenant_id = $1 and commitment = any($2::text[])", [
    tenantId,
    commitments,
  ]);
}

/** The tenancy's stored values (or erasures) of these commitments. */
export async function erasableRows(
  db: Queryable,
  tenantId: string,
  commitments: string[],
): Promise<ErasableRow[]> {
  if (commitments.length === 0) return [];
  return db.query<ErasableRow>(
    `select commitment, value, salt, erased_at, erased_by, erasure_basis, erasure_record
       from erasable_values where tenant_id = $1 and commitment = any($2::text[])`,
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
