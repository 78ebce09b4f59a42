/** A malformed, non-canonical or over-limit CBOR item (decoding untrusted input). */
export class CborError extends Error {
  readonly code = "CBOR";
}
