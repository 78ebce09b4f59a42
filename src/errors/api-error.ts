// src/errors, the server's error vocabulary: every code of the package (codes.ts), the API's
// refusals with their HTTP statuses and gRPC codes (this file), a refused query's and a path's UUID.
// The services, the store, the core and the HTTP edge throw these; the edge maps them, once
// (src/http/errors.ts). It imports only the formats' CodedError, and never reaches a browser.
import { CodedError } from "../formats/coded-error.js";

/** The kinds of failure the API answers, each with one HTTP status and gRPC code. */
export type ApiErrorKind =
  | "invalid_argument"
  | "unauthenticated"
  | "quota_exceeded"
  | "permission_denied"
  | "not_found"
  | "conflict"
  | "payload_too_large"
  | "unsupported_media_type"
  | "request_timeout"
  | "rate_limited"
  | "unavailable"
  | "internal";

/**
 * Stable machine-readable causes of a refused query, filter or policy (`QueryError`, query-error.ts).
 * Written here, where every API error's code is, so that the error and its refinement do not
 * import each other.
 */
export type QueryErrorCode =
  | "ODATA_PARSE"
  | "ATTRIBUTE_QUERY"
  | "POLICY_FILTER"
  | "USER_ATTRIBUTE"
  | "ACCESS_POLICY";

/**
 * The code of an API error: its kind in capitals, or the finer cause of a refused query
 * (`QueryErrorCode`). The wire keeps the spec's `{code, message, details}` with the gRPC number;
 * this code is for callers in process (a plugin, the CLI, a test) and for logs.
 */
export type ApiErrorCode = Uppercase<ApiErrorKind> | QueryErrorCode;

let keptLimit = Error.stackTraceLimit;

/**
 * The message, with stack capture turned off for the `super` call that follows (restored right
 * after it). A refusal is an answer to the caller, not a fault of ours: its stack is never logged
 * or shown, and capturing one (then formatting it, which streams do to errors they are destroyed
 * with) was the largest part of refusing a hostile client's cheapest requests. An internal error
 * keeps its stack.
 */
function withoutStack(kind: ApiErrorKind, message: string): string {
  keptLimit = Error.stackTraceLimit;
  if (kind !== "internal") Error.stackTraceLimit = 0;
  return message;
}

/** The one error type the service raises for a request; the HTTP edge maps it. */
export class ApiError extends CodedError<ApiErrorCode> {
  readonly code: ApiErrorCode;
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    readonly details: unknown[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(withoutStack(kind, message));
    Error.stackTraceLimit = keptLimit;
    this.code = kind.toUpperCase() as Uppercase<ApiErrorKind>;
  }
}

export const badRequest = (message: string, details: unknown[] = []) =>
  new ApiError("invalid_argument", message, details);
export const notFound = (what: string) => new ApiError("not_found", `${what} not found`);
export const forbidden = (message = "permission denied") => new ApiError("permission_denied", message);
export const unauthenticated = (message: string) => new ApiError("unauthenticated", message);
export const quotaExceeded = (what: string, limit: number) =>
  new ApiError("quota_exceeded", `quota of ${limit} ${what} reached`);

/** HTTP status and gRPC status code of each kind. */
export const errorStatus: Record<ApiErrorKind, { http: number; grpc: number }> = {
  invalid_argument: { http: 400, grpc: 3 },
  unauthenticated: { http: 401, grpc: 16 },
  quota_exceeded: { http: 402, grpc: 8 },
  permission_denied: { http: 403, grpc: 7 },
  not_found: { http: 404, grpc: 5 },
  conflict: { http: 409, grpc: 9 },
  payload_too_large: { http: 413, grpc: 3 },
  unsupported_media_type: { http: 415, grpc: 3 },
  request_timeout: { http: 408, grpc: 4 },
  rate_limited: { http: 429, grpc: 8 },
  unavailable: { http: 503, grpc: 14 },
  internal: { http: 500, grpc: 13 },
};
