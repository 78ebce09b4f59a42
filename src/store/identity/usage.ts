import type { Queryable } from "../drivers/db.js";

/**
 * Adds `delta` to a tenancy's usage of `kind` unless that would pass `limit`; the row lock
 * serialises concurrent creates of one tenancy. Returns false when over quota.
 */
export async function consumeQuota(
  tx: Queryable,
  tenantId: string,
  kind: string,
  delta: number,
  limit: number | undefined,
): Promise<boolean> {
  await tx.query(
    "insert into usage_counters (tenant_id, kind, n) values ($1, $2, 0) on conflict do nothing",
    [tenantId, kind],
  );
  const rows = await tx.query<{ n: number }>(
    "update usage_counters set n = n + $3 where tenant_id = $1 and kind = $2 and ($4::bigint is null or n + $3 <= $4) returning n",
    [tenantId, kind, delta, limit ?? null],
  );
  return rows.length > 0;
}
