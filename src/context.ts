import type { Logger } from "pino";
import type { Caches } from "./caches.js";
import type { Config } from "./config.js";
import type { Keyring } from "./keys/keyring.js";
import type { LogGuard } from "./keys/log-guard.js";
import type { InvitationMailer } from "./services/identity/invitation-mailer.js";
import type { RegistrationRate } from "./services/scitt/registration-rate.js";
import type { WritePath } from "./services/write/write-path.js";
import type { BlobStore } from "./store/blobstore/blob-store.js";
import type { Db } from "./store/drivers/db.js";
import type { Reads } from "./store/replication/replica-reads.js";
import type { Standby } from "./store/replication/standby.js";
import type { Vindex } from "./vindex/vindex.js";
import type { PublicationWaiter } from "./wake/publication-waiter.js";

/** Callbacks that wake background workers when work is waiting (the database holds the work). */
interface Wakeups {
  commit(tenantId: string): void;
  /** A log was sealed: requests waiting for a receipt check again (in every process). */
  published(): void;
}

/**
 * What every use case needs: storage, settings, keys, logs, and the long-lived objects and state of
 * the process. The context factory (`openContext`, src/server.ts) builds it once; nothing below is
 * kept at module level.
 */
export interface Ctx {
  db: Db;
  /**
   * The reads that a replica may serve (lists, searches, counts, proofs, tiles): the replica of
   * DATABASE_READ_URL, never answering less than the primary would, else `db` itself.
   */
  reads: Reads;
  /**
   * The standby a failover would promote (DATABASE_STANDBY_URL), when one is configured: signing
   * covers only what it has applied, and a write is answered once it has applied it.
   */
  standby: Standby | undefined;
  /** Settings, read once from the environment and flags; never changed after. */
  readonly config: Config;
  /**
   * The URL the service is reached at (issuers, links, the OpenAPI server): BASE_URL, or the
   * address its API listens on, derived once when the socket is bound (`effectiveBaseUrl`).
   */
  readonly baseUrl: string;
  keys: Keyring;
  /**
   * What each log last signed, kept with the keys: a log whose database is behind it or disagrees
   * with it is signed no more (`src/keys/log-guard.ts`) until an operator accepts the restore.
   */
  logGuard: LogGuard;
  /** Each log's verifiable index: revised by every seal, read by lookups (docs/complete-trails.md). */
  vindex: Vindex;
  log: Logger;
  wake: Wakeups;
  // Process state, built once by the context factory.
  /** Where blob bytes are kept (files, PostgreSQL rows or an S3 bucket, as configured). */
  blobs: BlobStore;
  /** Answers kept in memory to spare repeated work; each field says why. */
  caches: Caches;
  /** The open SCITT logs' registration rate, per tenancy, in this process. */
  registrationRate: RegistrationRate;
  /** The SMTP transport invitations are sent through, made at the first one. */
  invitationMailer: InvitationMailer;
  /** Batch, hand-off, commit: the one way records reach the log (`src/services/write/write-path.ts`). */
  writePath: WritePath;
  /** The process's one waiter for a seal (SCRAPI's receipt waits), woken by `wake.published`. */
  publications: PublicationWaiter;
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
