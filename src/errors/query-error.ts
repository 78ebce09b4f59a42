import { ApiError, type QueryErrorCode } from "./api-error.js";

/**
 * A query, filter or policy the client sent is malformed. It is an `ApiError` of kind
 * `invalid_argument` so the HTTP edge answers 400 with the message, with no extra mapping.
 */
export class QueryError extends ApiError {
  override readonly code: QueryErrorCode;
  constructor(
    code: QueryErrorCode,
    message: string,
    /** 1-based character position in the input, when the input is text. */
    readonly position?: number,
  ) {
    super("invalid_argument", message);
    this.code = code;
  }
}
