import { type ApiErrors, ApiRefusedError, ApiUnavailableError } from "../../../src/client/index.js";

/** The backend refused the request for good (a 4xx other than 429, bad credentials): retrying will not help. */
export class PermanentDeliveryError extends ApiRefusedError {
  override readonly code = "DELIVERY_REFUSED";
}

/** The backend or the network failed in a way that may pass (5xx, 429, timeouts, resets). */
export class TransientDeliveryError extends ApiUnavailableError {
  override readonly code = "DELIVERY_UNAVAILABLE";
}

/** The API client's errors as the delivery's own, so the worker tells dead letters from retries. */
export const DELIVERY_ERRORS: ApiErrors = {
  refused: (message, status) => new PermanentDeliveryError(message, status),
  unavailable: (message, status, retryAfterMs) => new TransientDeliveryError(message, status, retryAfterMs),
};
