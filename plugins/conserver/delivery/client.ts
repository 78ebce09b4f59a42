import type { Logger } from "pino";
import {
  ApiClient,
  type BearerTokens,
  type FetchFn,
  fetchSender,
  type RetryPolicy,
  type TransportObserver,
} from "vcon-archivist/client";
import { DELIVERY_ERRORS } from "./errors.js";
import { credentialsKey, type DeliveryBackend } from "./job.js";
import type { ConserverMetrics } from "./metrics.js";

export interface ClientOptions {
  /** A fetch to send with (tests); by default undici over a keep-alive agent. */
  fetch?: FetchFn;
  policy: RetryPolicy;
  signal: AbortSignal;
  metrics?: ConserverMetrics;
  log?: Logger;
}

function observer(o: ClientOptions): TransportObserver {
  return {
    answered: (route, status) => o.metrics?.requests.inc({ route, status }),
    rateLimited: (route, wait) => {
      o.metrics?.rateLimited.inc();
      o.log?.info({ route, wait }, "rate limited: waiting");
    },
    retrying: (message, wait) => o.log?.debug({ message, wait }, "archivist call failed; retrying"),
  };
}

/**
 * The API client as one job attempt uses it: sent as the backend's application, with the
 * link's user agent, the job's cancellation, the conserver's metrics and the delivery's errors.
 */
export class ArchivistClient extends ApiClient {
  /** The backend and credentials it sends as (`credentialsKey`). */
  readonly credentials: string;

  constructor(backend: DeliveryBackend, tokens: BearerTokens, opts: ClientOptions) {
    super({
      url: backend.url,
      tokens,
      ...(opts.fetch ? { send: fetchSender(opts.fetch) } : {}),
      policy: opts.policy,
      signal: opts.signal,
      headers: {
        "DataTrails-User-Agent": "oss/conserverlink/0.3.0",
        ...(backend.partnerId ? { "DataTrails-Partner-ID": backend.partnerId } : {}),
      },
      errors: DELIVERY_ERRORS,
      observer: observer(opts),
    });
    this.credentials = credentialsKey(backend);
  }
}
