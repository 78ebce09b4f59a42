import { CborError } from "./error.js";

/** The initial byte and argument of one CBOR data item. */
export interface Head {
  major: number;
  /** The low five bits of the initial byte. */
  info: number;
  /** The argument (a length, count, tag number or integer); 2^53 and above are approximate. */
  arg: number;
  /** Offset just after the head. */
  next: number;
}

// Smallest argument each longer head may carry; anything smaller had a shorter form (RFC 8949 §4.2.1).
const MIN_FOR_INFO: Record<number, number> = { 24: 24, 25: 0x100, 26: 0x10000, 27: 0x100000000 };
const ARG_BYTES: Record<number, number> = { 24: 1, 25: 2, 26: 4, 27: 8 };

/** Reads the head at `pos`, refusing truncation, reserved and indefinite forms and non-shortest arguments. */
export function readHead(bytes: Uint8Array, pos: number): Head {
  const initial = bytes[pos];
  if (initial === undefined) throw new CborError("input ends inside a data item");
  const major = initial >> 5;
  const info = initial & 31;
  if (info < 24) return { major, info, arg: info, next: pos + 1 };
  if (info === 31) {
    throw major >= 2 && major <= 5
      ? new CborError("indefinite lengths are not allowed")
      : new CborError(`break or indefinite form (0x${initial.toString(16)}) not allowed here`);
  }
  const size = ARG_BYTES[info];
  if (size === undefined) throw new CborError(`reserved additional information ${info}`);
  if (pos + 1 + size > bytes.length) throw new CborError("input ends inside a head");
  let arg = 0;
  for (let k = 1; k <= size; k++) arg = arg * 256 + (bytes[pos + k] as number);
  // Major 7 heads with a long argument are floats or simple values, checked by the caller.
  if (major !== 7 && arg < (MIN_FOR_INFO[info] as number))
    throw new CborError("argument not in its shortest form");
  return { major, info, arg, next: pos + 1 + size };
}
