/** Error codes of the conserver plugins (stable strings for logs, DLQ reasons and HTTP bodies). */
export type ConserverErrorCode =
  | "JSON_SYNTAX"
  | "JSON_TOO_DEEP"
  | "VCON_NOT_OBJECT"
  | "VCON_FORM_UNKNOWN"
  | "VCON_INVALID"
  | "VCON_NO_UUID"
  | "VCON_NOT_FOUND"
  | "VCON_SIGNED_PAYLOAD"
  | "VCON_NO_TIMESTAMP"
  | "CONFIG_INVALID"
  | "LINK_OPTIONS"
  | "LINK_UNKNOWN"
  | "LINK_CONTEXT"
  | "CHAIN_UNKNOWN"
  | "SCITT_REGISTRATION";

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
