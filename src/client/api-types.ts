import type { z } from "zod";
import type {
  assetBatchWithEvents,
  assetBatchWithEventsMinimal,
  assetBatchWithEventsOut,
  assetCreate,
  assetCreateWithEvents,
  assetEventBatch,
  assetEventBatchMinimal,
  assetEventBatchOut,
  assetOut,
  assetWithEventsMinimal,
  assetWithEventsOut,
  eventCreate,
  eventOut,
} from "../http/schemas/assets.js";
import type { consentOut, verificationOut } from "../http/schemas/consent.js";

// The request and answer shapes of the routes the client calls. Where the service has a zod
// schema they are inferred from it (types only: the client carries no server code), so a
// change to a route's schema is a type error here.

/** `POST /archivist/v2/assets`. */
export type AssetCreate = z.input<typeof assetCreate>;
/** An asset as the service returns it. */
export type Asset = z.output<typeof assetOut>;
/** `POST /archivist/v2/assets:withEvents`: an asset with its first Record events. */
export type AssetCreateWithEvents = z.input<typeof assetCreateWithEvents>;
export type AssetWithEvents = z.output<typeof assetWithEventsOut>;
/** The same under `{ minimal: true }` (`Prefer: return=minimal`): the identities it made. */
export type AssetWithEventsMade = z.output<typeof assetWithEventsMinimal>;
/** `POST /archivist/v2/assets:batchWithEvents`: many of those in one request, each answered alone. */
export type AssetBatchWithEvents = z.input<typeof assetBatchWithEvents>;
export type AssetBatchWithEventsAnswer = z.output<typeof assetBatchWithEventsOut>;
export type AssetBatchWithEventsMade = z.output<typeof assetBatchWithEventsMinimal>;
/** `POST /archivist/v2/assets/{uuid}/events`. */
export type EventCreate = z.input<typeof eventCreate>;
/** An asset event as the service returns it (`merklelog_entry` once committed). */
export type AssetEvent = z.output<typeof eventOut>;
/** `POST /archivist/v2/assets/-/events:batch`: many events, each on the asset it names, each answered alone. */
export type AssetEventBatch = z.input<typeof assetEventBatch>;
export type AssetEventBatchAnswer = z.output<typeof assetEventBatchOut>;
export type AssetEventBatchMade = z.output<typeof assetEventBatchMinimal>;

/** `GET /archivist/v1/consent/vcons/{uuid}` (an extension of this service): a vCon's consent per purpose. */
export type Consent = z.output<typeof consentOut>;

/** `POST /archivist/v1/consent/vcons/{uuid}/verifications`: the consent found, and the verification recorded. */
export type ConsentVerification = z.output<typeof verificationOut>;

/** `POST /archivist/v1/events`: an asset-free event. */
export interface FreeEventCreate {
  attributes?: Record<string, unknown>;
  trails?: string[];
  event_type?: string;
}

/** An asset-free event as the service returns it. */
// Type aliases, not interfaces: a record is then a `Record<string, unknown>` the verifier takes.
export type FreeEvent = {
  identity: string;
  attributes: Record<string, unknown>;
  trails: string[] | null;
  event_type: string;
  origin_tenant: string;
  created_by: string;
  created_at: number;
  confirmation_status: string;
  /** `index` "0" and `idtimestamp` "" until committed. */
  merklelog_commit: { index: string; idtimestamp: string };
};

/** `POST /archivist/v1/events/search`: an OData filter, at most 50 a page. */
export interface EventSearch {
  filter?: string;
  top?: number;
  skip?: number;
}

/** A blob's metadata (`POST /archivist/v1/blobs`, `GET …/info`). */
export interface Blob {
  identity: string;
  hash: { alg: string; value: string };
  mime_type: string;
  size: number;
  issuer: string;
  subject: string;
  tenantid: string;
  timestamp_accepted: string;
  scanned_status: string;
  scanned_bad_reason: string;
  scanned_timestamp: string;
}

/** A list query: attribute filters (a repeated value matches any of them), paging. */
export type ListQuery = Record<string, string | readonly string[]> & {
  page_size?: string;
  page_token?: string;
};

/** One page of a list, and the total when it was asked for (`x-total-count`). */
export interface Page<T> {
  items: T[];
  /** Empty on the last page. */
  nextPageToken: string;
  /** Exact up to the service's result limit, an estimate past it (`partial`). */
  total?: number;
  /** 206: the list is longer than the service's result limit. */
  partial: boolean;
}

/** A receipt profile: MMR (the log's own) or RFC 9162 (the SCITT tree). */
export type ReceiptProfile = "mmr" | "rfc9162";
