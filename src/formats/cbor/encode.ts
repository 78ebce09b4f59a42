/** A CBOR data item as this project writes it. Maps with integer keys are `Map`s; `Tagged` wraps a tag. */
export type CborValue =
  | number
  | bigint
  | string
  | boolean
  | null
  | Uint8Array
  | CborValue[]
  | Map<CborValue, CborValue>
  | { [key: string]: CborValue }
  | Tagged
  | CborBstr;

/** A tagged data item (e.g. tag 18, COSE_Sign1). */
export class Tagged {
  constructor(
    readonly tag: number,
    readonly value: CborValue,
  ) {}
}

/**
 * Encoding only: a byte string holding the encoding of `value` (CDDL `bstr .cbor`), written in place
 * instead of being encoded into a buffer of its own first. It decodes as that byte string.
 */
export class CborBstr {
  constructor(readonly value: CborValue) {}
}

const TWO_32 = 0x100000000;
const MAX_U64 = 0xffffffffffffffffn;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Bytes a head with argument `n` (a non-negative safe integer) takes. */
export function headSize(n: number): number {
  if (n < 24) return 1;
  if (n < 0x100) return 2;
  if (n < 0x10000) return 3;
  return n < TWO_32 ? 5 : 9;
}

/**
 * Writes the shortest head for `major` and `n` (a non-negative safe integer) at `pos`; returns the
 * offset after it. Plain number arithmetic: BigInt here cost more than the rest of a COSE header.
 */
export function writeHead(out: Uint8Array, pos: number, major: number, n: number): number {
  const m = major << 5;
  if (n < 24) {
    out[pos] = m | n;
    return pos + 1;
  }
  if (n < 0x100) {
    out[pos] = m | 24;
    out[pos + 1] = n;
    return pos + 2;
  }
  if (n < 0x10000) {
    out[pos] = m | 25;
    out[pos + 1] = n >>> 8;
    out[pos + 2] = n;
    return pos + 3;
  }
  if (n < TWO_32) {
    out[pos] = m | 26;
    out[pos + 1] = n >>> 24;
    out[pos + 2] = n >>> 16;
    out[pos + 3] = n >>> 8;
    out[pos + 4] = n;
    return pos + 5;
  }
  out[pos] = m | 27;
  writeU32(out, pos + 1, Math.floor(n / TWO_32));
  writeU32(out, pos + 5, n >>> 0);
  return pos + 9;
}

function writeU32(out: Uint8Array, pos: number, v: number): void {
  out[pos] = v >>> 24;
  out[pos + 1] = v >>> 16;
  out[pos + 2] = v >>> 8;
  out[pos + 3] = v;
}

const textEncoder = new TextEncoder();

/** Strings up to this many UTF-16 units are checked for ASCII and copied unit by unit (no encoder call). */
const SHORT_TEXT = 64;

/** Order of two encoded keys in `buf` (RFC 8949 §4.2.1: bytewise lexicographic). */
function compareRanges(buf: Uint8Array, a: number, aEnd: number, b: number, bEnd: number): number {
  const n = Math.min(aEnd - a, bEnd - b);
  for (let i = 0; i < n; i++) {
    const d = (buf[a + i] as number) - (buf[b + i] as number);
    if (d !== 0) return d;
  }
  return aEnd - a - (bEnd - b);
}

/**
 * Deterministic CBOR written into one growing buffer: every item goes straight to its final place,
 * and map entries are written as they come and only moved when their keys are out of order.
 */
export class CborWriter {
  buf: Uint8Array;
  pos = 0;
  /** Where each open map's entries and keys end, as a stack shared by nested maps (no arrays per map). */
  private marks: number[] = [];
  /** Top of the marks stack (setting an array's length is a slow runtime call). */
  private top = 0;

  constructor(initial: Uint8Array | number = 256) {
    this.buf = typeof initial === "number" ? new Uint8Array(initial) : initial;
  }

  /** Starts over (a failed encoding may have left marks behind). */
  reset(): void {
    this.pos = 0;
    this.top = 0;
  }

  /** Makes room for `n` more bytes. */
  reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** A copy of what was written, exactly sized. */
  bytes(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  byte(b: number): void {
    this.reserve(1);
    this.buf[this.pos++] = b;
  }

  head(major: number, n: number): void {
    this.reserve(9);
    this.pos = writeHead(this.buf, this.pos, major, n);
  }

  /** A head whose argument is a bigint below 2^64. */
  bigHead(major: number, v: bigint): void {
    if (v <= MAX_SAFE) {
      this.head(major, Number(v));
      return;
    }
    if (v > MAX_U64) throw new TypeError("integer does not fit in 64 bits");
    this.reserve(9);
    const out = this.buf;
    out[this.pos] = (major << 5) | 27;
    writeU32(out, this.pos + 1, Number(v >> 32n));
    writeU32(out, this.pos + 5, Number(v & 0xffffffffn));
    this.pos += 9;
  }

  byteString(b: Uint8Array): void {
    const n = b.length;
    this.reserve(9 + n);
    this.pos = writeHead(this.buf, this.pos, 2, n);
    this.buf.set(b, this.pos);
    this.pos += n;
  }

  text(s: string): void {
    const n = s.length;
    if (n <= SHORT_TEXT) {
      // Optimistically ASCII: one pass that copies and checks; anything else is rewritten below.
      this.reserve(2 + n);
      const out = this.buf;
      const p = writeHead(out, this.pos, 3, n);
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        out[p + i] = c;
      }
      if (i === n) {
        this.pos = p + n;
        return;
      }
    }
    // UTF-8 takes at most 3 bytes per UTF-16 unit: encode behind the longest head it could need,
    // then close the gap. Lone surrogates become U+FFFD, as TextEncoder has always written them.
    const max = 3 * n;
    const hMax = headSize(max);
    this.reserve(hMax + max);
    const at = this.pos;
    const { written } = textEncoder.encodeInto(s, this.buf.subarray(at + hMax, at + hMax + max));
    const h = headSize(written);
    if (h < hMax) this.buf.copyWithin(at + h, at + hMax, at + hMax + written);
    writeHead(this.buf, at, 3, written);
    this.pos = at + h + written;
  }

  value(v: CborValue): void {
    switch (typeof v) {
      case "number":
        if (!Number.isSafeInteger(v)) throw new TypeError("only integers are encoded");
        if (v >= 0) this.head(0, v);
        else this.head(1, -1 - v);
        return;
      case "bigint":
        if (v >= 0n) this.bigHead(0, v);
        else this.bigHead(1, -1n - v);
        return;
      case "string":
        this.text(v);
        return;
      case "boolean":
        this.byte(v ? 0xf5 : 0xf4);
        return;
      case "object":
        if (v === null) this.byte(0xf6);
        else if (v instanceof Uint8Array) this.byteString(v);
        else if (Array.isArray(v)) {
          this.head(4, v.length);
          for (const item of v) this.value(item);
        } else if (v instanceof Tagged) {
          this.head(6, v.tag);
          this.value(v.value);
        } else if (v instanceof Map) this.map(v);
        else if (v instanceof CborBstr) this.wrapped(v.value);
        else this.object(v);
        return;
      default:
        throw new TypeError(`${typeof v} values cannot be encoded`);
    }
  }

  /** `value` encoded as the content of a byte string: written after the longest head, then moved next to the shortest. */
  wrapped(value: CborValue): void {
    this.reserve(9);
    const at = this.pos;
    this.pos += 9;
    this.value(value);
    const n = this.pos - at - 9;
    const h = headSize(n);
    this.buf.copyWithin(at + h, at + 9, this.pos);
    writeHead(this.buf, at, 2, n);
    this.pos = at + h + n;
  }

  map(m: Map<CborValue, CborValue>): void {
    const n = m.size;
    this.head(5, n);
    if (n === 0) return;
    const marks = this.marks;
    const base = this.top;
    this.top += 2 * n;
    // Filled up front so that nested maps, which write past this map's slots, keep the array packed.
    while (marks.length < this.top) marks.push(0);
    let i = base;
    for (const [k, v] of m) {
      marks[i++] = this.pos;
      this.value(k);
      marks[i++] = this.pos;
      this.value(v);
    }
    this.orderEntries(base, n);
  }

  object(o: { [key: string]: CborValue }): void {
    const keys = Object.keys(o);
    this.head(5, keys.length);
    if (keys.length === 0) return;
    const marks = this.marks;
    const base = this.top;
    this.top += 2 * keys.length;
    // Filled up front so that nested maps, which write past this map's slots, keep the array packed.
    while (marks.length < this.top) marks.push(0);
    let i = base;
    for (const k of keys) {
      marks[i++] = this.pos;
      this.text(k);
      marks[i++] = this.pos;
      this.value(o[k] as CborValue);
    }
    this.orderEntries(base, keys.length);
  }

  /**
   * Core deterministic encoding (RFC 8949 §4.2.1) sorts map keys by their encoded bytes. Entries
   * usually arrive in order, which one pass confirms; otherwise they are rewritten sorted.
   */
  private orderEntries(base: number, n: number): void {
    const buf = this.buf;
    const marks = this.marks;
    // Entry i starts at marks[base + 2i], its key ends at marks[base + 2i + 1].
    const start = (i: number) => marks[base + 2 * i] as number;
    const keyEnd = (i: number) => marks[base + 2 * i + 1] as number;
    let sorted = true;
    for (let i = 1; i < n && sorted; i++)
      sorted = compareRanges(buf, start(i - 1), keyEnd(i - 1), start(i), keyEnd(i)) < 0;
    if (!sorted) {
      const end = this.pos;
      const order = Array.from({ length: n }, (_, i) => i);
      order.sort((x, y) => compareRanges(buf, start(x), keyEnd(x), start(y), keyEnd(y)));
      for (let i = 1; i < n; i++) {
        const a = order[i - 1] as number;
        const b = order[i] as number;
        if (compareRanges(buf, start(a), keyEnd(a), start(b), keyEnd(b)) === 0)
          throw new TypeError("duplicate map key");
      }
      const first = start(0);
      const copy = buf.slice(first, end);
      let p = first;
      for (const i of order) {
        const from = start(i) - first;
        const to = (i + 1 < n ? start(i + 1) : end) - first;
        buf.set(copy.subarray(from, to), p);
        p += to - from;
      }
    }
    this.top = base;
  }
}

// One writer reused across calls (encoding is synchronous); a nested call finds it taken and makes its own.
let spare: CborWriter | undefined = new CborWriter(1024);
const KEEP_AT_MOST = 64 * 1024;

/**
 * A writer on the shared scratch buffer; give it back with releaseWriter once nothing refers to its
 * bytes any more. Saves the allocation of a fresh buffer per message, which costs more than encoding
 * a COSE header does.
 */
export function takeWriter(): CborWriter {
  const w = spare ?? new CborWriter(1024);
  spare = undefined;
  w.reset();
  return w;
}

export function releaseWriter(w: CborWriter): void {
  if (w.buf.length <= KEEP_AT_MOST) spare = w;
}

/** Deterministic CBOR (RFC 8949 core deterministic): shortest heads, sorted map keys, no floats. */
export function encodeCbor(value: CborValue): Uint8Array {
  const w = takeWriter();
  try {
    w.value(value);
    return w.bytes();
  } finally {
    releaseWriter(w);
  }
}
