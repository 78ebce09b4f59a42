import { CodedError } from "../../src/formats/coded-error.js";
import { VconError, type VconErrorCode } from "../../src/formats/vcon/errors.js";
import type { PermanentDeliveryError, TransientDeliveryError } from "./delivery/errors.js";
import type { QueueConfigError, RetryLaterError, UnrecoverableJobError } from "./queue/errors.js";

/** Error codes of the conserver plugins (stable strings for logs, DLQ reasons and HTTP bodies). */
export type ConserverErrorCode =
  | Exclude<VconErrorCode, "HASH_MODE_UNKNOWN">
  | "VCON_NOT_FOUND"
  | "VCON_NO_TIMESTAMP"
  | "CONFIG_INVALID"
  | "LINK_OPTIONS"
  | "LINK_UNKNOWN"
  | "LINK_CONTEXT"
  | "CHAIN_UNKNOWN"
  | "SCITT_REGISTRATION"
  | "CONSENT_REFUSED"
  | "PROVENANCE_INVALID"
  | "REDIS_UNREACHABLE"
  | "DEMO_USAGE";

/**
 * Every error code the conserver plugins throw: the conserver's own, the queue's, and the API
 * client's (a delivery's refusal is `API_REFUSED`, a failure that may pass `API_UNAVAILABLE`).
 */
export type ConserverPluginErrorCode =
  | ConserverErrorCode
  | UnrecoverableJobError["code"]
  | RetryLaterError["code"]
  | QueueConfigError["code"]
  | PermanentDeliveryError["code"]
  | TransientDeliveryError["code"];

/** A typed failure of the conserver plugins: `code` for machines, `message` for people. */
export class ConserverError extends CodedError<ConserverErrorCode> {
  constructor(
    readonly code: ConserverErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * The plugins' error for a failure of the core's vCon functions: the same code (an unknown hash
 * mode is a link option error) and message. Anything else is returned as it is.
 */
export function conserverErrorOf(err: unknown): unknown {
  if (!(err instanceof VconError)) return err;
  const code = err.code === "HASH_MODE_UNKNOWN" ? "LINK_OPTIONS" : err.code;
  return new ConserverError(code, err.message, err.details);
}
