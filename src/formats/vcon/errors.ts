import { CodedError } from "../coded-error.js";
/** Why a vCon or its JSON could not be read (stable strings: callers map them to their own errors). */
export type VconErrorCode =
  | "JSON_SYNTAX"
  | "JSON_TOO_DEEP"
  | "VCON_NOT_OBJECT"
  | "VCON_FORM_UNKNOWN"
  | "VCON_INVALID"
  | "VCON_NO_UUID"
  | "VCON_SIGNED_PAYLOAD"
  | "HASH_MODE_UNKNOWN";

/** A vCon that cannot be parsed, checked or hashed: `code` for machines, `message` for people. */
export class VconError extends CodedError<VconErrorCode> {
  constructor(
    readonly code: VconErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}
