import type { AccessPolicy, Caller } from "./types.js";

/** One tenancy's share of a caller's view of the records. */
export interface AccessScope {
  tenantId: string;
  /**
   * The tenancy's policies that may apply to the caller, and the caller as that tenancy sees it;
   * absent, every record of the tenancy is readable (its administrators).
   */
  policies?: { policies: readonly AccessPolicy[]; caller: Caller } | undefined;
}

/**
 * Which records a list may show: the access part of its specification, which the store compiles
 * (`compileReadableAssets`/`compileReadableEvents` for policies) together with the filters, so
 * that a page and its count never hold a record the caller may not read.
 */
export type AccessRestriction =
  /** One tenancy's records, all of them (its administrators, sharing with nobody). */
  | { kind: "tenancy"; tenantId: string }
  /** The records of public assets (no caller). */
  | { kind: "public" }
  /** The records any of these scopes lets through; no scope lets nothing through. */
  | { kind: "scopes"; scopes: readonly AccessScope[] }
  /**
   * Nothing to restrict: the service has authorised every record the list can reach (the events
   * of one asset it read under a whole grant).
   */
  | { kind: "authorised" };
