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
  | Tagged;

/** A tagged data item (e.g. tag 18, COSE_Sign1). */
export class Tagged {
  constructor(
    readonly tag: number,
    readonly value: CborValue,
  ) {}
}

function head(major: number, n: number | bigint): Uint8Array {
  const m = major << 5;
  // Small arguments (almost all of them: lengths, labels) skip BigInt arithmetic.
  if (typeof n === "number" && n < 0x10000) {
    if (n < 24) return Uint8Array.of(m | n);
    if (n < 0x100) return Uint8Array.of(m | 24, n);
    return Uint8Array.of(m | 25, n >> 8, n & 0xff);
  }
  const v = BigInt(n);
  if (v < 24n) return Uint8Array.of(m | Number(v));
  if (v < 0x100n) return Uint8Array.of(m | 24, Number(v));
  if (v < 0x10000n) return Uint8Array.of(m | 25, Number(v >> 8n), Number(v & 0xffn));
  const out = new Uint8Array(v < 0x100000000n ? 5 : 9);
  out[0] = m | (v < 0x100000000n ? 26 : 27);
  const view = new DataView(out.buffer);
  if (out.length === 5) view.setUint32(1, Number(v));
  else view.setBigUint64(1, v);
  return out;
}

const enc = new TextEncoder();
const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++)
    if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return a.length - b.length;
}

function encodeMap(entries: Array<[CborValue, CborValue]>): Uint8Array {
  // RFC 8949 §4.2.1 core deterministic encoding: keys sorted by their encoded bytes.
  const pairs = entries
    .map(([k, v]) => [encodeCbor(k), encodeCbor(v)] as const)
    .sort((x, y) => compareBytes(x[0], y[0]));
  for (let i = 1; i < pairs.length; i++) {
    if (
      compareBytes(
        (pairs[i - 1] as readonly [Uint8Array, Uint8Array])[0],
        (pairs[i] as readonly [Uint8Array, Uint8Array])[0],
      ) === 0
    )
      throw new TypeError("duplicate map key");
  }
  return concat([head(5, pairs.length), ...pairs.flat()]);
}

/** Deterministic CBOR (RFC 8949 core deterministic): shortest heads, sorted map keys, no floats. */
export function encodeCbor(value: CborValue): Uint8Array {
  if (typeof value === "number" && Number.isSafeInteger(value))
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "number") throw new TypeError("only integers are encoded");
  if (typeof value === "bigint") return value >= 0n ? head(0, value) : head(1, -1n - value);
  if (typeof value === "string") {
    const b = enc.encode(value);
    return concat([head(3, b.length), b]);
  }
  if (value instanceof Uint8Array) return concat([head(2, value.length), value]);
  if (value === null) return Uint8Array.of(0xf6);
  if (value === true) return Uint8Array.of(0xf5);
  if (value === false) return Uint8Array.of(0xf4);
  if (Array.isArray(value)) return concat([head(4, value.length), ...value.map(encodeCbor)]);
  if (value instanceof Tagged) return concat([head(6, value.tag), encodeCbor(value.value)]);
  if (value instanceof Map) return encodeMap([...value.entries()]);
  return encodeMap(Object.entries(value));
}
