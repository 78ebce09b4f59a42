import type { VconEventBody } from "../template.js";
import { isRecord } from "../vcon.js";

/** An archivist-API deployment and the application credentials to write to it. */
export interface DeliveryBackend {
  /** Base URL, e.g. https://archivist.example (paths `/archivist/...` are appended). */
  url: string;
  clientId: string;
  clientSecret: string;
  /** Token endpoint when not `{url}/archivist/iam/v1/appidp/token`. */
  tokenUrl?: string;
  /** Sent as `DataTrails-Partner-ID`. */
  partnerId?: string;
}

/** One event to record; safe to run more than once (the worker looks the event up first). */
export interface DeliveryJob {
  /** `<vcon uuid>:<operation>:<payload hash>`: the same key is recorded at most once per backend. */
  idempotencyKey: string;
  vconUuid: string;
  event: VconEventBody;
  backend: DeliveryBackend;
  /** Also record an asset-free event on trail `vcon://<uuid>`. */
  alsoAssetFree?: boolean;
  /**
   * Create the vCon's asset public (`public: true`) when this delivery creates it: its events are
   * then read by anyone, with no token (`/verify`, `archivist verify vcon`). An asset that exists
   * keeps what it was created as.
   */
  publicAsset?: boolean;
}

/**
 * Who a request to a backend is sent as: requests of jobs with the same key are interchangeable
 * (one token serves them, one may ask for all), those of different keys never are (jobs carry
 * their credentials: after a secret rotation, queued jobs hold the old one).
 */
export function credentialsKey(b: DeliveryBackend): string {
  return JSON.stringify([b.url, b.tokenUrl ?? null, b.clientId, b.clientSecret]);
}

/** The deployment and application an event is recorded for: its assets and events are one set. */
export function backendKey(b: DeliveryBackend): string {
  return `${b.url}|${b.clientId}`;
}

/** The idempotency key of one operation on one vCon version. */
export function idempotencyKey(vconUuid: string, operation: string, payloadHash: string): string {
  return `${vconUuid}:${operation}:${payloadHash}`;
}

function isText(v: unknown): v is string {
  return typeof v === "string" && v !== "";
}

/** Why a job's data cannot be delivered (it came from Redis: anything may be in it), or undefined. */
export function jobProblem(data: unknown): string | undefined {
  if (!isRecord(data)) return "job data is not an object";
  if (!isText(data.idempotencyKey) || !isText(data.vconUuid)) return "job lacks idempotencyKey or vconUuid";
  const b = data.backend;
  if (!isRecord(b) || !isText(b.url) || !isText(b.clientId) || !isText(b.clientSecret))
    return "job backend needs url, clientId and clientSecret";
  const e = data.event;
  if (!isRecord(e) || e.operation !== "Record" || !isRecord(e.event_attributes))
    return "job event is malformed";
  const attrs = e.event_attributes;
  if (!isText(attrs.payload) || !isText(attrs.vcon_operation) || !isText(attrs.subject))
    return "job event lacks payload, vcon_operation or subject";
  return undefined;
}
