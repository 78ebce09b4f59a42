/**
 * A typed client of the Archivist API (`vcon-archivist/client`): client-credentials tokens,
 * retries as the retry policy allows, and typed calls for assets, events, receipts, SCITT and
 * blobs. It carries no server code; verify what it fetches with `vcon-archivist/verify`.
 */

export { BodyTooLarge, readBounded } from "../net/bounded-body.js";
export {
  ApiClient,
  type ListOptions,
  type Minimal,
  type Registration,
  type ScittOptions,
} from "./api-client.js";
export type * from "./api-types.js";
export { exponentialDelay, sleep } from "./backoff.js";
export { API_ERRORS, type ApiErrors, ApiRefusedError, ApiUnavailableError } from "./errors.js";
export {
  type FetchFn,
  fetchSender,
  type HeaderReader,
  type HttpAnswer,
  type HttpRequest,
  type HttpSend,
  keepAliveSender,
} from "./http.js";
export type { FilePart } from "./multipart.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy, rateLimitWaitMs } from "./retry-policy.js";
export {
  type BearerTokens,
  type ClientCredentials,
  requestToken,
  TokenSource,
  type TokenSourceOptions,
  tokenUrl,
} from "./token-source.js";
export {
  type CallOptions,
  type Reply,
  type RequestBody,
  Transport,
  type TransportObserver,
  type TransportOptions,
} from "./transport.js";
