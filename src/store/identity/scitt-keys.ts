import type { Queryable } from "../drivers/db.js";

export interface ScittKeyRow {
  tenant_id: string;
  kid: string;
  display_name: string;
  public_jwk: Record<string, unknown>;
}

export function listScittKeys(db: Queryable, tenantId: string): Promise<ScittKeyRow[]> {
  return db.query<ScittKeyRow>(
    "select tenant_id, kid, display_name, public_jwk from scitt_keys where tenant_id = $1 order by created_at",
    [tenantId],
  );
}

export async function insertScittKey(db: Queryable, k: ScittKeyRow): Promise<void> {
  await db.query(
    `insert into scitt_keys (tenant_id, kid, display_name, public_jwk) values ($1, $2, $3, $4::jsonb)
     on conflict (tenant_id, kid) do update set display_name = excluded.display_name, public_jwk = excluded.public_jwk`,
    [k.tenant_id, k.kid, k.display_name, JSON.stringify(k.public_jwk)],
  );
}

export async function deleteScittKey(db: Queryable, tenantId: string, kid: string): Promise<boolean> {
  return (
    (
      await db.query("delete from scitt_keys where tenant_id = $1 and kid = $2 returning kid", [
        tenantId,
        kid,
      ])
    ).length > 0
  );
}
