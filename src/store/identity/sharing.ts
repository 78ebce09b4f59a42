import type { Queryable } from "../drivers/db.js";
import { type BriefCache, briefCache } from "../query/brief-cache.js";

const SELF = "00000000-0000-0000-0000-000000000000";

export type Sharing = ReadonlyArray<{ tenantId: string; subjects: string[] }>;

/**
 * Tenancies that share with a tenancy (OBAC), kept for a second (a context holds one): every list
 * and read of records asks, only subject writes change it (each forgets the kept answers), and the
 * query costs more to plan than the page it guards. Answers are shared between callers: not to be
 * modified.
 */
export type SharingCache = BriefCache<Sharing>;

export const sharingCache = (): SharingCache => briefCache(1000, lookUpSharing);

/**
 * Tenancies that share with `tenantId` (OBAC): each has imported our Self subject (a
 * subject of theirs holds one of our wallet keys) and we have imported theirs. Returns
 * their tenancy id and the identities of their subjects that stand for us.
 */
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
