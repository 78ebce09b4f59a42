import type { Queryable } from "../drivers/db.js";

export interface TenancyRow {
  id: string;
  display_name: string;
  quotas: Record<string, number>;
  oidc: { issuer: string; jwks_url: string } | null;
}

/** All tenancies (provisioning and workers iterate them). */
export function listTenancies(db: Queryable): Promise<TenancyRow[]> {
  return db.query<TenancyRow>("select id, display_name, quotas, oidc from tenancies order by created_at");
}

export async function getTenancy(db: Queryable, id: string): Promise<TenancyRow | undefined> {
  return (
    await db.query<TenancyRow>("select id, display_name, quotas, oidc from tenancies where id = $1", [id])
  )[0];
}

/** Creates or updates a tenancy by id (provisioning is idempotent). */
export async function upsertTenancy(db: Queryable, t: TenancyRow): Promise<void> {
  await db.query(
    `insert into tenancies (id, display_name, quotas, oidc) values ($1, $2, $3::jsonb, $4::jsonb)
     on conflict (id) do update set display_name = excluded.display_name, quotas = excluded.quotas, oidc = excluded.oidc`,
    [t.id, t.display_name, JSON.stringify(t.quotas), t.oidc ? JSON.stringify(t.oidc) : null],
  );
}

/** Serialises quota-checked creates within one tenancy for the rest of the transaction. */
export async function lockTenancy(tx: Queryable, id: string): Promise<TenancyRow | undefined> {
  return (
    await tx.query<TenancyRow>(
      "select id, display_name, quotas, oidc from tenancies where id = $1 for update",
      [id],
    )
  )[0];
}
