import { VconError, type VconErrorCode } from "../../src/core/vcon/errors.js";

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
  | "REDIS_UNREACHABLE";

/** A typed failure of the conserver plugins: `code` for machines, `message` for people. */
export class ConserverError extends Error {
  constructor(
    readonly code: ConserverErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ConserverError";
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
