import type { Logger } from "pino";
import type { Config } from "./config.js";
import type { Db } from "./store/db.js";
import type { Keyring } from "./store/keyring.js";
import type { WritePath } from "./write-path.js";

/** Callbacks that wake background workers when work is waiting (the database holds the work). */
export interface Wakeups {
  commit(tenantId: string): void;
}

/** What every use case needs: storage, settings, keys, logs. */
export interface Ctx {
  db: Db;
  config: Config;
  keys: Keyring;
  log: Logger;
  wake: Wakeups;
  /** Batch, hand-off, commit: the one way records reach the log (`src/write-path.ts`). */
  writePath: WritePath;
}

/** Who is calling: resolved from a verified bearer token. */
export interface Principal {
  tenantId: string;
  kind: "application" | "member";
  /** Client id of an application, or the member uuid. */
  id: string;
  issuer: string;
  subject: string;
  displayName: string;
  email: string;
  claims: Record<string, unknown>;
  roles: string[];
  /** Owner role or a tenancy administrator (root principal). */
  isAdmin: boolean;
}

/** Identity of the tenancy as records show it. */
export const tenantIdentity = (tenantId: string) => `tenant/${tenantId}`;
