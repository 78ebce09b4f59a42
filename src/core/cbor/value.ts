/** A map as this project decodes every CBOR map: keys keep their CBOR types. */
export type CborMap = Map<CborValue, CborValue>;

/** A text-keyed map written as a plain object (encoding only; decoding always gives a `Map`). */
export interface CborObject {
  [key: string]: CborValue;
}

/** A CBOR data item as this project reads and writes it (integers only, no floats or `undefined`). */
export type CborValue =
  | number
  | bigint
  | string
  | boolean
  | null
  | Uint8Array
  | CborValue[]
  | CborMap
  | CborObject
  | Tagged;

/** A tagged data item (e.g. tag 18, COSE_Sign1). */
export class Tagged {
  constructor(
    readonly tag: number,
    readonly value: CborValue,
  ) {}

  // cborg recognises tagged items by this name and writes `tag` then `value`.
  get [Symbol.toStringTag](): string {
    return "Tagged";
  }
}

/** True for a decoded (or hand-built) CBOR map. */
export function isCborMap(value: unknown): value is CborMap {
  return value instanceof Map;
}
