import { encode, type EncodeOptions, rfc8949EncodeOptions } from "cborg";
import { CborError } from "./error.js";
import type { CborValue } from "./value.js";

type Sorter = NonNullable<EncodeOptions["mapSorter"]>;
const bytewise = rfc8949EncodeOptions.mapSorter as Sorter;

// Two keys with one encoding (say 1 and 1n) would make the map ambiguous, so refuse it.
const uniqueBytewise: Sorter = (a, b, options) => {
  const order = bytewise(a, b, options);
  if (order === 0) throw new CborError("CBOR_UNENCODABLE", "duplicate map key");
  return order;
};

const refuse = (what: string) => () => {
  throw new CborError("CBOR_UNENCODABLE", `${what} cannot be encoded deterministically`);
};

const OPTIONS: EncodeOptions = {
  ...rfc8949EncodeOptions,
  mapSorter: uniqueBytewise,
  typeEncoders: {
    number: (n: number) => (Number.isSafeInteger(n) ? null : refuse(`the number ${n}`)()),
    undefined: refuse("undefined"),
    symbol: refuse("a symbol"),
    Function: refuse("a function"),
  },
};

/**
 * Deterministic CBOR (RFC 8949 §4.2.1 core deterministic encoding): shortest heads, definite lengths,
 * map keys sorted bytewise by their encoding; integers only.
 */
export function encodeCbor(value: CborValue): Uint8Array {
  try {
    return encode(value, OPTIONS);
  } catch (err) {
    if (err instanceof CborError) throw err;
    throw new CborError("CBOR_UNENCODABLE", err instanceof Error ? err.message : String(err));
  }
}
