import { CodedError } from "../../formats/coded-error.js";
/**
 * The little DER (X.690) a certificate check needs: tag-length-value headers, a constructed
 * value's children, object identifiers and the string types of names. Node's X509Certificate
 * verifies signatures but exposes neither path-length limits, nor names as fields, nor which
 * extensions are critical, and parsing its text renderings would trust their escaping.
 */
export interface Tlv {
  tag: number;
  /** Where the content starts and ends. */
  start: number;
  end: number;
}

export class DerError extends CodedError<"DER_INVALID"> {
  readonly code = "DER_INVALID";
}

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  OID: 0x06,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

export function tlv(der: Uint8Array, at: number, limit: number): Tlv {
  if (at + 2 > limit) throw new DerError("truncated");
  const tag = der[at] as number;
  if ((tag & 0x1f) === 0x1f) throw new DerError("high tag numbers are not used in certificates");
  let len = der[at + 1] as number;
  let start = at + 2;
  if (len & 0x80) {
    const bytes = len & 0x7f;
    if (bytes === 0 || bytes > 4) throw new DerError("unsupported length");
    if (start + bytes > limit) throw new DerError("truncated");
    len = 0;
    for (let i = 0; i < bytes; i++) len = len * 256 + (der[start + i] as number);
    start += bytes;
  }
  const end = start + len;
  if (end > limit) throw new DerError("truncated");
  return { tag, start, end };
}

export function children(der: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.start; at < parent.end; ) {
    const t = tlv(der, at, parent.end);
    out.push(t);
    at = t.end;
  }
  return out;
}

/** The one value inside `outer` (an OCTET STRING wrapping an extension's value, say). */
export function inner(der: Uint8Array, outer: Tlv, tag: number, what: string): Tlv {
  const t = tlv(der, outer.start, outer.end);
  if (t.tag !== tag || t.end !== outer.end) throw new DerError(`${what} is malformed`);
  return t;
}

/** Dotted text of an OBJECT IDENTIFIER (`2.5.4.3`). */
export function oidText(der: Uint8Array, t: Tlv): string {
  if (t.tag !== TAG.OID || t.end === t.start) throw new DerError("expected an OBJECT IDENTIFIER");
  const arcs: number[] = [];
  let v = 0;
  for (let i = t.start; i < t.end; i++) {
    const b = der[i] as number;
    if (v === 0 && b === 0x80) throw new DerError("OBJECT IDENTIFIER arc not minimally encoded");
    v = v * 128 + (b & 0x7f);
    if (v > Number.MAX_SAFE_INTEGER / 128) throw new DerError("OBJECT IDENTIFIER arc too large");
    if ((b & 0x80) === 0) {
      arcs.push(v);
      v = 0;
    }
  }
  if ((der[t.end - 1] as number) & 0x80) throw new DerError("OBJECT IDENTIFIER truncated");
  const first = arcs.shift() as number;
  const [a, b] = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80];
  return [a, b, ...arcs].join(".");
}

const latin1 = new TextDecoder("latin1");
const utf8 = new TextDecoder("utf-8", { fatal: true });
const utf16be = new TextDecoder("utf-16be", { fatal: true });

/**
 * The text of a directory string or IA5String. Throws on a type it does not know, so that a
 * name it cannot read never matches anything.
 */
export function stringValue(der: Uint8Array, t: Tlv): string {
  const bytes = der.subarray(t.start, t.end);
  switch (t.tag) {
    case 0x0c: // UTF8String
      return utf8.decode(bytes);
    case 0x13: // PrintableString
    case 0x16: // IA5String
      if (bytes.some((b) => b > 0x7f)) throw new DerError("non-ASCII byte in an ASCII string");
      return latin1.decode(bytes);
    case 0x14: // TeletexString, read as Latin-1 as OpenSSL does
      return latin1.decode(bytes);
    case 0x1e: // BMPString
      return utf16be.decode(bytes);
    default:
      throw new DerError(`unsupported string type 0x${t.tag.toString(16)}`);
  }
}
