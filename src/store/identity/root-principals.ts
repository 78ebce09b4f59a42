import type { Queryable } from "../drivers/db.js";

export interface RootPrincipalRow {
  tenant_id: string;
  issuer: string;
  subject: string;
  display_name: string;
}

export function listRootPrincipals(db: Queryable, tenantId: string): Promise<RootPrincipalRow[]> {
  return db.query<RootPrincipalRow>(
    "select tenant_id, issuer, subject, display_name from root_principals where tenant_id = $1 order by created_at",
    [tenantId],
  );
}

export async function isRootPrincipal(
  db: Queryable,
  tenantId: string,
  issuer: string,
  subject: string,
): Promise<boolean> {
  const rows = await db.query(
    "select 1 from root_principals where tenant_id = $1 and issuer = $2 and subject = $3",
    [tenantId, issuer, subject],
  );
  return rows.length > 0;
}

/** Replaces the tenancy's administrators with `principals`. */
export async function replaceRootPrincipals(
  db: Queryable,
  tenantId: string,
  principals: Omit<RootPrincipalRow, "tenant_id">[],
): Promise<void> {
  await db.query("delete from root_principals where tenant_id = $1", [tenantId]);
  for (const p of principals) {
    await db.query(
      "insert into root_principals (tenant_id, issuer, subject, display_name) values ($1, $2, $3, $4) on conflict do nothing",
      [tenantId, p.issuer, p.subject, p.display_name],
    );
  }
}
