/** The backend refused the request for good (a 4xx other than 429, bad credentials): retrying will not help. */
export class PermanentDeliveryError extends Error {
  readonly code = "DELIVERY_REFUSED";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The backend or the network failed in a way that may pass (5xx, 429, timeouts, resets). */
export class TransientDeliveryError extends Error {
  readonly code = "DELIVERY_UNAVAILABLE";
  constructor(
    message: string,
    readonly status?: number,
    /** When the backend said how long to wait (429 `Archivist-Rate-Limit-Reset`). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}
