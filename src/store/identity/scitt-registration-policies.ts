import type { Queryable } from "../drivers/db.js";

export interface RegistrationPolicyRow {
  tenant_id: string;
  /** Statements may be registered by signature alone, without a bearer token. */
  open: boolean;
  requests_per_second: number;
}

/** The tenancy's policy; closed (token required) when it never set one. */
export async function getRegistrationPolicy(db: Queryable, tenantId: string): Promise<RegistrationPolicyRow> {
  const rows = await db.query<RegistrationPolicyRow>(
    "select tenant_id, open, requests_per_second from scitt_registration_policies where tenant_id = $1",
    [tenantId],
  );
  const r = rows[0];
  return r
    ? { ...r, requests_per_second: Number(r.requests_per_second) }
    : { tenant_id: tenantId, open: false, requests_per_second: 10 };
}

export async function putRegistrationPolicy(db: Queryable, p: RegistrationPolicyRow): Promise<void> {
  await db.query(
    `insert into scitt_registration_policies (tenant_id, open, requests_per_second) values ($1, $2, $3)
     on conflict (tenant_id) do update set open = $2, requests_per_second = $3, updated_at = now()`,
    [p.tenant_id, p.open, p.requests_per_second],
  );
}
