import type { Caches } from "../../caches.js";
import type { Keyring } from "../../keys/keyring.js";
import type { Db } from "../../store/drivers/db.js";

// Written out here rather than picked from `Ctx`: the context holds the write path, so a write
// file naming the context would make the two import each other. `Ctx` has every field below.

/** The one wake-up the write path gives: records are stored, the committer may run. */
export interface CommitWake {
  wake: { commit(tenantId: string): void };
}

/** What the write path's appenders need: the database, the keys (tenancy wallets) and the caches. */
export interface WriteDeps extends CommitWake {
  db: Db;
  keys: Keyring;
  caches: Caches;
}
