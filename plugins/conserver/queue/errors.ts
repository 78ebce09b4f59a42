import { CodedError } from "../../../src/formats/coded-error.js";

/** Thrown by a handler for a job that must not be retried (it fails at once). */
export class UnrecoverableJobError extends CodedError<"JOB_UNRECOVERABLE"> {
  readonly code = "JOB_UNRECOVERABLE";
}

/** Thrown by a handler to ask for the next attempt no sooner than `retryAfterMs`. */
export class RetryLaterError extends CodedError<"JOB_RETRY_LATER"> {
  readonly code = "JOB_RETRY_LATER";
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/** A queue could not be created or used as configured. */
export class QueueConfigError extends CodedError<"QUEUE_CONFIG"> {
  readonly code = "QUEUE_CONFIG";
}
