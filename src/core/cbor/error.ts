/** Why a CBOR item was refused (decoding) or could not be written (encoding). */
export type CborErrorCode =
  | "CBOR_EMPTY"
  | "CBOR_TOO_LARGE"
  | "CBOR_TOO_DEEP"
  | "CBOR_TRUNCATED"
  | "CBOR_TRAILING_BYTES"
  | "CBOR_INDEFINITE_LENGTH"
  | "CBOR_NON_CANONICAL"
  | "CBOR_DUPLICATE_KEY"
  | "CBOR_UNSORTED_KEYS"
  | "CBOR_INVALID_UTF8"
  | "CBOR_UNSUPPORTED"
  | "CBOR_MALFORMED"
  | "CBOR_UNENCODABLE";

/** A typed CBOR failure; `code` says which rule was broken. */
export class CborError extends Error {
  override readonly name = "CborError";

  constructor(
    readonly code: CborErrorCode,
    message: string,
  ) {
    super(message);
  }
}
