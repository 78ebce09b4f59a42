import type { Queryable } from "./db.js";

const SELF = "00000000-0000-0000-0000-000000000000";

export type Sharing = ReadonlyArray<{ tenantId: string; subjects: string[] }>;

// Every list and read of records asks this, and only subject writes change it; the query costs more
// to plan than the page it guards. So answers are kept briefly, like principals (services/auth.ts):
// a change made in this process is seen at once, one made in another within a second.
const SHARING_TTL_MS = 1000;
const MAX_CACHED = 10_000;
let generation = 0;
const cache = new WeakMap<
  Queryable,
  Map<string, { at: number; generation: number; value: Promise<Sharing> }>
>();

/** Drops every cached answer; called after any write to subjects (either side of a share may change). */
export function forgetSharing(): void {
  generation++;
}

/**
 * Tenancies that share with `tenantId` (OBAC): each has imported our Self subject (a
 * subject of theirs holds one of our wallet keys) and we have imported theirs. Returns
 * their tenancy id and the identities of their subjects that stand for us (not to be modified:
 * answers are shared between callers for up to a second).
 */
export function sharingTenancies(db: Queryable, tenantId: string): Promise<Sharing> {
  let byTenant = cache.get(db);
  if (!byTenant) {
    byTenant = new Map();
    cache.set(db, byTenant);
  }
  const now = Date.now();
  const hit = byTenant.get(tenantId);
  if (hit && hit.generation === generation && now - hit.at < SHARING_TTL_MS) return hit.value;
  if (byTenant.size >= MAX_CACHED) byTenant.clear();
  const entry = { at: now, generation, value: lookUpSharing(db, tenantId) };
  byTenant.set(tenantId, entry);
  const tenants = byTenant;
  entry.value.catch(() => {
    if (tenants.get(tenantId) === entry) tenants.delete(tenantId);
  });
  return entry.value;
}

async function lookUpSharing(db: Queryable, tenantId: string): Promise<Sharing> {
  const rows = await db.query<{ tenant_id: string; id: string }>(
    `select theirs.tenant_id, theirs.id from subjects theirs
       join subjects myself on myself.tenant_id = $1 and myself.id = $2
       join subjects theirself on theirself.tenant_id = theirs.tenant_id and theirself.id = $2
      where theirs.tenant_id <> $1 and theirs.id <> $2
        and theirs.wallet_pub_key ?| array(select jsonb_array_elements_text(myself.wallet_pub_key))
        and exists (select 1 from subjects mine where mine.tenant_id = $1 and mine.id <> $2
                      and mine.wallet_pub_key ?| array(select jsonb_array_elements_text(theirself.wallet_pub_key)))`,
    [tenantId, SELF],
  );
  const byTenant = new Map<string, string[]>();
  for (const r of rows) byTenant.set(r.tenant_id, [...(byTenant.get(r.tenant_id) ?? []), `subjects/${r.id}`]);
  return [...byTenant.entries()].map(([t, subjects]) => ({ tenantId: t, subjects }));
}
