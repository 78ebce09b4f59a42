/**
 * The basicConstraints extension (RFC 5280 §4.2.1.9) of a DER certificate. Node's
 * X509Certificate tells whether a certificate is a CA but not its path-length limit, which a
 * chain check needs: an intermediate limited to `pathLen` 0 may issue end-entity certificates
 * only, never another CA.
 */
export interface BasicConstraints {
  ca: boolean;
  /** How many intermediate CA certificates may follow this one below it; undefined: no limit. */
  pathLen: number | undefined;
}

interface Tlv {
  tag: number;
  /** Where the content starts and ends. */
  start: number;
  end: number;
}

class DerError extends Error {}

function tlv(der: Uint8Array, at: number, limit: number): Tlv {
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

function children(der: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.start; at < parent.end; ) {
    const t = tlv(der, at, parent.end);
    out.push(t);
    at = t.end;
  }
  return out;
}

const SEQUENCE = 0x30;
const BOOLEAN = 0x01;
const INTEGER = 0x02;
const OID = 0x06;
const OCTET_STRING = 0x04;
const EXTENSIONS = 0xa3;
// 2.5.29.19, DER-encoded.
const BASIC_CONSTRAINTS_OID = [0x55, 0x1d, 0x13];

function isOid(der: Uint8Array, t: Tlv, oid: number[]): boolean {
  return t.tag === OID && t.end - t.start === oid.length && oid.every((b, i) => der[t.start + i] === b);
}

function constraintsOf(der: Uint8Array, value: Tlv): BasicConstraints {
  const seq = tlv(der, value.start, value.end);
  if (seq.tag !== SEQUENCE) throw new DerError("basicConstraints is not a SEQUENCE");
  let ca = false;
  let pathLen: number | undefined;
  for (const f of children(der, seq)) {
    if (f.tag === BOOLEAN && f.end - f.start === 1) ca = der[f.start] !== 0;
    else if (f.tag === INTEGER && f.end - f.start <= 4) {
      if (((der[f.start] as number) & 0x80) !== 0) throw new DerError("negative pathLenConstraint");
      pathLen = 0;
      for (let i = f.start; i < f.end; i++) pathLen = pathLen * 256 + (der[i] as number);
    } else throw new DerError("unexpected field in basicConstraints");
  }
  return { ca, pathLen };
}

/**
 * The certificate's basicConstraints; `{ ca: false }` without the extension. Throws on DER it
 * cannot read, so that a caller treats such a certificate as untrusted rather than unlimited.
 */
export function basicConstraints(der: Uint8Array): BasicConstraints {
  const cert = tlv(der, 0, der.length);
  const tbs = cert.tag === SEQUENCE ? children(der, cert)[0] : undefined;
  if (tbs?.tag !== SEQUENCE) throw new DerError("not a certificate");
  const extensions = children(der, tbs).find((t) => t.tag === EXTENSIONS);
  if (!extensions) return { ca: false, pathLen: undefined };
  const list = children(der, extensions)[0];
  if (list?.tag !== SEQUENCE) throw new DerError("extensions are not a SEQUENCE");
  for (const ext of children(der, list)) {
    const [id, ...rest] = children(der, ext);
    if (!id || !isOid(der, id, BASIC_CONSTRAINTS_OID)) continue;
    const value = rest.at(-1);
    if (value?.tag !== OCTET_STRING) throw new DerError("basicConstraints value is not an OCTET STRING");
    return constraintsOf(der, value);
  }
  return { ca: false, pathLen: undefined };
}
