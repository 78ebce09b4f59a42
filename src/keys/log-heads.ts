import type { SignedLogState } from "./signed-state.js";

/**
 * A log's head as the shared store holds it: the signed state, the process that moved it there,
 * and the store's version of it (what a swap compares with).
 */
export interface LogHead {
  state: SignedLogState;
  /** The process that wrote it (`LogHeads.signer`). */
  signer: string;
  /** The store's revision of the head: a swap from it succeeds only while it is still the head. */
  revision: string;
}

/** What a swap found instead of the head it expected. */
export type SwapResult = { ok: true; head: LogHead } | { ok: false; current: LogHead | undefined };

/**
 * Each log's head, kept outside the database it guards and outside any one machine (etcd). The
 * head moves only by compare-and-swap from the head the signer last knew, so of two services
 * that each believe they sign one log, one swap fails and that one signs nothing.
 */
export interface LogHeads {
  /** This process's name in the heads it writes (random per process). */
  readonly signer: string;
  /** Where the heads are kept, for logs and `/readyz` ("etcd http://…"). */
  readonly where: string;
  /** The head as the store holds it now (asked of the store, not of a cache). */
  read(tenantId: string): Promise<LogHead | undefined>;
  /**
   * Moves the head from `from` (its revision; undefined: there is no head yet) to `state`. Fails,
   * naming the head found, when another writer moved it since.
   */
  swap(tenantId: string, from: string | undefined, state: SignedLogState): Promise<SwapResult>;
  /** Removes the head if it is still at revision `from` (a log's first signing that did not commit); true if it was. */
  remove(tenantId: string, from: string): Promise<boolean>;
  /** Every log with a head. */
  tenants(): Promise<string[]>;
  /** Called with each head another writer settled (not pending), as the store reports it. */
  watch(onHead: (tenantId: string, head: LogHead) => void): Promise<void>;
  /** Answers within a bound, or throws: readiness. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
