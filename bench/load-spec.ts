import type { Summary } from "./stats.js";

/** One request template; `{{n}}` in the path or body is replaced by the request's sequence number. */
export interface RequestTemplate {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** A binary body (a compressed bomb, a truncated upload), base64: sent as these bytes. */
  bodyBase64?: string;
}

/** What the load generator process is asked to do (sent as JSON on its stdin). */
export interface LoadSpec {
  label: string;
  origin: string;
  connections: number;
  /** Templates used round-robin. */
  requests: RequestTemplate[];
  durationMs: number;
  maxRequests: number;
  /** Requests started during the first warmupMs are sent but not counted. */
  warmupMs: number;
  /** Offered load in requests/s (open loop); absent: closed loop, `concurrency` always in flight. */
  rate?: number;
  concurrency: number;
  /** Statuses counted as success (default [200]). */
  okStatus?: number[];
  /**
   * The address the generator's connections come from (a loopback address such as 127.0.0.12):
   * the hostile scenario's rounds each come from an address of their own, as a new attacker would.
   */
  localAddress?: string;
  /** Capture a JSON string field of every sampleEvery-th successful response, up to sampleMax. */
  sample?: { field: string; every: number; max: number };
}

/** A captured response field with the wall-clock time (epoch ms) its request was sent. */
export interface LoadSample {
  value: string;
  sentAt: number;
}

/** What the load generator reports on its stdout (one JSON document). */
export interface LoadResult {
  label: string;
  /** Counted (post-warmup) requests. */
  completed: number;
  ok: number;
  errors: number;
  statuses: Record<string, number>;
  /** First non-success response body or network error, for diagnosis. */
  firstError?: string;
  measuredMs: number;
  throughput: number;
  /** Latency of successful counted requests, ms; open loop: from the intended send time. */
  latency: Summary;
  /** Open loop only: requests that waited to start because `concurrency` requests were already in flight. */
  late: number;
  samples: LoadSample[];
}
