import { type ApiErrors, ApiRefusedError, ApiUnavailableError } from "vcon-archivist/client";

/**
 * The backend refused the request for good (a 4xx other than 429, bad credentials): retrying will
 * not help. Its code is the client's `API_REFUSED`; the class tells a delivery's refusal apart.
 */
export class PermanentDeliveryError extends ApiRefusedError {}

/** The backend or the network failed in a way that may pass (5xx, 429, timeouts, resets): `API_UNAVAILABLE`. */
export class TransientDeliveryError extends ApiUnavailableError {}

/** The API client's errors as the delivery's own, so the worker tells dead letters from retries. */
export const DELIVERY_ERRORS: ApiErrors = {
  refused: (message, status) => new PermanentDeliveryError(message, status),
  unavailable: (message, status, retryAfterMs) => new TransientDeliveryError(message, status, retryAfterMs),
};
