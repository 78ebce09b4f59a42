import { TokenSource as ClientTokenSource, type FetchFn } from "vcon-archivist/client";
import { DELIVERY_ERRORS } from "./errors.js";
import type { DeliveryBackend } from "./job.js";

export { type FetchFn, tokenUrl } from "vcon-archivist/client";

/**
 * A backend's client-credentials tokens (the API client's), failing with the delivery's own
 * errors: refused credentials dead-letter a job, an unavailable endpoint retries it.
 */
export class TokenSource extends ClientTokenSource {
  constructor(
    backend: DeliveryBackend,
    fetchFn: FetchFn = fetch,
    marginMs = 60_000,
    now: () => number = Date.now,
  ) {
    super(backend, { fetch: fetchFn, marginMs, now, errors: DELIVERY_ERRORS });
  }
}
