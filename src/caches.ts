import type { AccessPolicy } from "./core/access/index.js";
import { ReceiptHeaders } from "./core/log/receipt-headers.js";
import { SignatureMemo } from "./keys/signature-memo.js";
import {
  type AccessPolicyCache,
  type AccessPolicyRow,
  accessPolicyCache,
} from "./store/identity/access-policies.js";
import { type SharingCache, sharingCache } from "./store/identity/sharing.js";
import { LatestSeals } from "./store/ledger/latest-seals.js";
import type { EntryRow } from "./store/ledger/ledger.js";
import { type BriefCache, briefCache } from "./store/query/brief-cache.js";
import type { EventAccessFacts } from "./store/records/asset-events.js";
import type { AssetRow } from "./store/records/assets.js";
import { getErasurePolicy } from "./store/records/erasable-values.js";

/**
 * What a context keeps in memory to spare repeated work, built once with it (`openContext`).
 * Nothing here is needed for correctness: each answer is the one the work would give again.
 */
export interface Caches {
  /** Receipts signed, by record, profile and sealed size: a receipt never changes (services/ledger/proofs.ts). */
  receipts: Map<string, Uint8Array>;
  /**
   * Who may read each asset event, by its id: its asset, tenancy, publicity and attributes never
   * change once stored (services/access/readable-records.ts).
   */
  eventFacts: Map<string, EventAccessFacts>;
  /**
   * Each committed record's log entry, by record id, once a seal's or checkpoint's signature
   * vouched for it: an entry never changes, but its row can be rewritten (services/ledger/proofs.ts).
   */
  entries: Map<string, EntryRow & { tenant_id: string }>;
  /** Each log's latest seal as receipts take it: read at most every 200 ms, once for all who ask together. */
  latestSeals: LatestSeals;
  /** Encoded receipt protected headers: every receipt of one log shares its header. */
  receiptHeaders: ReceiptHeaders;
  /** Receipt signatures by key and Sig_structure: the receipts under one peak or root share one. */
  receiptSignatures: SignatureMemo;
  /** The full C2SP tiles and entry bundles served last: full tiles never change (services/ledger/tlog.ts). */
  fullTiles: Map<string, Uint8Array>;
  /**
   * SHA-256 of each client secret that verified, by its stored hash: scrypt costs ~40 ms, and a
   * client asks for a token again and again (services/identity/secrets.ts).
   */
  verifiedSecrets: Map<string, Buffer>;
  /** Value filters found to match many rows, until when (ms): their probe is skipped (store/records/narrowed-source.ts). */
  commonFilters: Map<string, number>;
  /** Who shares with each tenancy, for a second: every read asks, only subject writes change it. */
  sharing: SharingCache;
  /** Each tenancy's access policies, for a second: every non-administrator's request asks. */
  accessPolicies: AccessPolicyCache;
  /**
   * Each tenancy's policies as checked, by the array of rows `accessPolicies` handed out (it keeps
   * one for up to a second): checking every policy on every request cost ~5 µs a policy, on each
   * event of a least-privilege pipeline. Rows read again are a new array, checked again
   * (services/access/caller-view.ts).
   */
  checkedPolicies: WeakMap<readonly AccessPolicyRow[], AccessPolicy[]>;
  /**
   * The assets the optimistic group write last saw, by id: only what it expects to find, which its
   * statement compares with each asset as locked (services/write/asset-event-group.ts).
   */
  assetStates: Map<string, AssetRow>;
  /** Each tenancy's erasable attribute names, for a second: every event write asks (services/records/erasable.ts). */
  erasurePolicies: BriefCache<string[]>;
}

export function newCaches(): Caches {
  return {
    receipts: new Map(),
    eventFacts: new Map(),
    entries: new Map(),
    latestSeals: new LatestSeals(),
    receiptHeaders: new ReceiptHeaders(),
    receiptSignatures: new SignatureMemo(),
    fullTiles: new Map(),
    verifiedSecrets: new Map(),
    commonFilters: new Map(),
    sharing: sharingCache(),
    accessPolicies: accessPolicyCache(),
    checkedPolicies: new WeakMap(),
    assetStates: new Map(),
    erasurePolicies: briefCache(1000, getErasurePolicy),
  };
}
