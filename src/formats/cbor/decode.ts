import { type CborValue, Tagged } from "./encode.js";
import { CborError } from "./error.js";

export { CborError };

export interface DecodeLimits {
  /** Largest input accepted. */
  maxBytes: number;
  /** Deepest nesting of arrays, maps and tags. */
  maxDepth: number;
  /**
   * Byte strings are views into the input instead of copies. Only for input the caller owns and
   * never changes, such as a byte string this decoder already copied (a COSE protected header):
   * a copy per byte string is an allocation per certificate of a hostile x5chain.
   */
  views: boolean;
}

const DEFAULT_LIMITS: DecodeLimits = { maxBytes: 1024 * 1024, maxDepth: 32, views: false };

/** Tags the project reads: COSE structures (16, 17, 18, 96, 98) and encoded CBOR (24). */
const TAGS = new Set([16, 17, 18, 24, 96, 98]);

// fatal: invalid UTF-8 is refused, not replaced (lossy decoding would map different signed bytes to one
// string); ignoreBOM: a leading U+FEFF is kept, so decoding stays one to one and re-encodes the same bytes.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Short ASCII strings are built unit by unit: the decoder call costs more than they do. */
const SHORT_TEXT = 32;

const TWO_32 = 0x100000000;
/** An 8-byte argument's high word at or above this makes the value exceed Number.MAX_SAFE_INTEGER. */
const UNSAFE_HIGH = 0x200000;
/** Smallest argument each longer head may carry; anything smaller had a shorter form (RFC 8949 §4.2.1). */
const MIN_ARG = [24, 0x100, 0x10000];

/** One byte per code unit: equal strings exactly when the bytes are equal. */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  let s = "";
  for (let i = start; i < end; i += 4096)
    s += String.fromCharCode.apply(null, bytes.subarray(i, Math.min(end, i + 4096)) as unknown as number[]);
  return s;
}

/**
 * Strict recursive-descent decoding in one pass: definite lengths, shortest heads, valid UTF-8, no
 * duplicate keys, known tags, no floats or undefined. Nesting is counted before each descent, so
 * recursion never goes deeper than maxDepth.
 */
class Reader {
  pos = 0;
  depth = 0;

  constructor(
    readonly bytes: Uint8Array,
    readonly maxDepth: number,
    readonly views: boolean,
  ) {}

  private enter(): void {
    if (++this.depth > this.maxDepth) throw new CborError(`nesting deeper than ${this.maxDepth}`);
  }

  item(): CborValue {
    const bytes = this.bytes;
    const pos = this.pos;
    const initial = bytes[pos];
    if (initial === undefined) throw new CborError("input ends inside a data item");
    const major = initial >> 5;
    const info = initial & 31;
    if (major === 7) return this.simple(info);
    let arg: number;
    let big: bigint | undefined;
    if (info < 24) {
      arg = info;
      this.pos = pos + 1;
    } else if (info < 28) {
      const size = 1 << (info - 24);
      if (pos + 1 + size > bytes.length) throw new CborError("input ends inside a head");
      if (size === 8) {
        const hi =
          (bytes[pos + 1] as number) * 0x1000000 +
          (bytes[pos + 2] as number) * 0x10000 +
          (bytes[pos + 3] as number) * 0x100 +
          (bytes[pos + 4] as number);
        const lo =
          (bytes[pos + 5] as number) * 0x1000000 +
          (bytes[pos + 6] as number) * 0x10000 +
          (bytes[pos + 7] as number) * 0x100 +
          (bytes[pos + 8] as number);
        if (hi === 0) throw new CborError("argument not in its shortest form");
        arg = hi * TWO_32 + lo;
        if (hi >= UNSAFE_HIGH) big = (BigInt(hi) << 32n) | BigInt(lo);
      } else {
        arg = 0;
        for (let k = 1; k <= size; k++) arg = arg * 256 + (bytes[pos + k] as number);
        if (arg < (MIN_ARG[info - 24] as number)) throw new CborError("argument not in its shortest form");
      }
      this.pos = pos + 1 + size;
    } else if (info === 31) {
      throw major >= 2 && major <= 5
        ? new CborError("indefinite lengths are not allowed")
        : new CborError(`break or indefinite form (0x${initial.toString(16)}) not allowed here`);
    } else {
      throw new CborError(`reserved additional information ${info}`);
    }
    switch (major) {
      case 0:
        return big ?? arg;
      case 1:
        // Values beyond the safe range are bigints, as for unsigned integers.
        if (big === undefined && arg < Number.MAX_SAFE_INTEGER) return -1 - arg;
        return -1n - (big ?? BigInt(arg));
      case 2:
        return this.byteString(arg);
      case 3:
        return this.text(arg);
      case 4:
        return this.array(arg);
      case 5:
        return this.map(arg);
      default:
        return this.tagged(arg);
    }
  }

  private simple(info: number): CborValue {
    if (info === 20 || info === 21 || info === 22) {
      this.pos++;
      return info === 22 ? null : info === 21;
    }
    if (info === 23) throw new CborError("undefined is not accepted");
    if (info === 31) throw new CborError("break or indefinite form (0xff) not allowed here");
    if (info >= 28) throw new CborError(`reserved additional information ${info}`);
    if (info >= 25) throw new CborError("floating-point values are not accepted");
    throw new CborError("unassigned simple value");
  }

  private span(n: number): number {
    const start = this.pos;
    if (n > this.bytes.length - start) throw new CborError("string runs past the end of the input");
    this.pos = start + n;
    return start;
  }

  private byteString(n: number): Uint8Array {
    const start = this.span(n);
    // A copy unless the caller owns the input: the decoded value must not change when the caller
    // reuses its input buffer.
    return this.views ? this.bytes.subarray(start, start + n) : this.bytes.slice(start, start + n);
  }

  private text(n: number): string {
    const bytes = this.bytes;
    const start = this.span(n);
    const end = start + n;
    if (n <= SHORT_TEXT) {
      let s = "";
      let i = start;
      for (; i < end; i++) {
        const c = bytes[i] as number;
        if (c >= 0x80) break;
        s += String.fromCharCode(c);
      }
      if (i === end) return s;
    }
    try {
      return utf8.decode(bytes.subarray(start, end));
    } catch {
      throw new CborError("text string is not valid UTF-8");
    }
  }

  private array(n: number): CborValue[] {
    if (n > this.bytes.length - this.pos) throw new CborError("container runs past the end of the input");
    const out: CborValue[] = [];
    if (n === 0) return out;
    this.enter();
    for (let i = 0; i < n; i++) out.push(this.item());
    this.depth--;
    return out;
  }

  private map(n: number): Map<CborValue, CborValue> {
    if (n * 2 > this.bytes.length - this.pos) throw new CborError("container runs past the end of the input");
    const out = new Map<CborValue, CborValue>();
    if (n === 0) return out;
    this.enter();
    // Keys that are objects (byte strings, arrays, maps, tags) are compared by their encoded bytes;
    // the others by value, which is exact because each value has exactly one accepted encoding.
    let objectKeys: Set<string> | undefined;
    for (let i = 0; i < n; i++) {
      const keyStart = this.pos;
      const key = this.item();
      if (typeof key === "object" && key !== null) {
        objectKeys ??= new Set();
        const encoded = latin1(this.bytes, keyStart, this.pos);
        if (objectKeys.has(encoded)) throw new CborError("duplicate map key");
        objectKeys.add(encoded);
      } else if (out.has(key)) {
        throw new CborError("duplicate map key");
      }
      out.set(key, this.item());
    }
    this.depth--;
    return out;
  }

  private tagged(tag: number): Tagged {
    if (!TAGS.has(tag)) throw new CborError(`tag ${tag} is not accepted`);
    this.enter();
    const value = this.item();
    this.depth--;
    return new Tagged(tag, value);
  }
}

/** Strict, bounded CBOR decoding: no duplicate keys, no indefinite lengths, no trailing bytes, depth and size limits. */
export function decodeCbor(bytes: Uint8Array, limits: Partial<DecodeLimits> = {}): CborValue {
  const maxBytes = limits.maxBytes ?? DEFAULT_LIMITS.maxBytes;
  const maxDepth = limits.maxDepth ?? DEFAULT_LIMITS.maxDepth;
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) throw new CborError("empty input");
  if (bytes.length > maxBytes) throw new CborError(`input larger than ${maxBytes} bytes`);
  // A plain view, so byte strings decoded from a Node buffer are Uint8Array copies like any others.
  const input =
    bytes.constructor === Uint8Array
      ? bytes
      : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reader = new Reader(input, maxDepth, limits.views ?? DEFAULT_LIMITS.views);
  let value: CborValue;
  try {
    value = reader.item();
  } catch (err) {
    if (err instanceof CborError) throw err;
    // Only a caller-raised maxDepth can exhaust the stack; that is still malformed input to the caller.
    if (err instanceof RangeError) throw new CborError(`nesting too deep: ${err.message}`);
    throw err;
  }
  if (reader.pos !== input.length)
    throw new CborError(`${input.length - reader.pos} bytes after the data item`);
  return value;
}
