import { CodedError } from "../coded-error.js";
/** A malformed, non-canonical or over-limit CBOR item (decoding untrusted input). */
export class CborError extends CodedError<"CBOR"> {
  readonly code = "CBOR";
}
