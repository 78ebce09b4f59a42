// The client's entry imports nothing outside its folder, so its errors derive from Error, not from
// the core's CodedError; their codes are in the package's vocabulary all the same (src/errors/codes.ts).

/** The service refused the request for good (a 4xx other than 408 and 429, bad credentials): resending will not help. */
export class ApiRefusedError extends Error {
  readonly code = "API_REFUSED";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The service or the network failed in a way that may pass (5xx, 408, 429, timeouts, resets). */
export class ApiUnavailableError extends Error {
  readonly code = "API_UNAVAILABLE";
  constructor(
    message: string,
    readonly status?: number,
    /** When the service said how long to wait (429 `Archivist-Rate-Limit-Reset` or `Retry-After`). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * How a client makes its errors. A caller with error classes of its own (subclasses of these)
 * passes a maker for them, so what it catches is what it already knows (the conserver's
 * delivery dead-letters on its refusals).
 */
export interface ApiErrors {
  refused(message: string, status?: number): ApiRefusedError;
  unavailable(message: string, status?: number, retryAfterMs?: number): ApiUnavailableError;
}

export const API_ERRORS: ApiErrors = {
  refused: (message, status) => new ApiRefusedError(message, status),
  unavailable: (message, status, retryAfterMs) => new ApiUnavailableError(message, status, retryAfterMs),
};
