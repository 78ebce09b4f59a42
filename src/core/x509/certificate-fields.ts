import { children, DerError, inner, oidText, stringValue, TAG, type Tlv, tlv } from "./der.js";

/** A subject alternative name the did:x509 model knows; other kinds are left out. */
type AltName = ["email" | "dns" | "uri", string];

/** What identity and trust checks read of a certificate, parsed once from its DER. */
export interface CertificateFields {
  /** Subject attributes in order, as (dotted OID, text). */
  subject: Array<[string, string]>;
  subjectAltNames: AltName[] | undefined;
  /** Extended key usage OIDs; undefined without the extension. */
  extendedKeyUsage: string[] | undefined;
  /** The digitalSignature bit of keyUsage; undefined without the extension. */
  digitalSignature: boolean | undefined;
  basicConstraints: { ca: boolean; pathLen: number | undefined } | undefined;
  /** OIDs of the extensions marked critical. */
  critical: string[];
}

export const OID = {
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  extendedKeyUsage: "2.5.29.37",
  certificatePolicies: "2.5.29.32",
} as const;

const VERSION = 0xa0;
const EXTENSIONS = 0xa3;
const ALT_NAME_KINDS: Record<number, AltName[0]> = { 129: "email", 130: "dns", 134: "uri" };

function nameAttributes(der: Uint8Array, name: Tlv): Array<[string, string]> {
  if (name.tag !== TAG.SEQUENCE) throw new DerError("a name is not a SEQUENCE");
  const out: Array<[string, string]> = [];
  for (const rdn of children(der, name)) {
    if (rdn.tag !== TAG.SET) throw new DerError("a relative distinguished name is not a SET");
    for (const atv of children(der, rdn)) {
      const [type, value] = atv.tag === TAG.SEQUENCE ? children(der, atv) : [];
      if (!type || !value) throw new DerError("malformed name attribute");
      out.push([oidText(der, type), stringValue(der, value)]);
    }
  }
  return out;
}

function altNames(der: Uint8Array, value: Tlv): AltName[] {
  const seq = inner(der, value, TAG.SEQUENCE, "subjectAltName");
  const out: AltName[] = [];
  for (const g of children(der, seq)) {
    const kind = ALT_NAME_KINDS[g.tag];
    if (!kind) continue;
    const bytes = der.subarray(g.start, g.end);
    if (bytes.some((b) => b > 0x7f)) throw new DerError("non-ASCII byte in an IA5String name");
    out.push([kind, new TextDecoder("latin1").decode(bytes)]);
  }
  return out;
}

function digitalSignatureBit(der: Uint8Array, value: Tlv): boolean {
  const bits = inner(der, value, TAG.BIT_STRING, "keyUsage");
  if (bits.end - bits.start < 1) throw new DerError("keyUsage is empty");
  // The first content byte counts the unused bits; digitalSignature is bit 0, the first one.
  return bits.end - bits.start > 1 && ((der[bits.start + 1] as number) & 0x80) !== 0;
}

function constraints(der: Uint8Array, value: Tlv): { ca: boolean; pathLen: number | undefined } {
  const seq = inner(der, value, TAG.SEQUENCE, "basicConstraints");
  let ca = false;
  let pathLen: number | undefined;
  for (const f of children(der, seq)) {
    if (f.tag === TAG.BOOLEAN && f.end - f.start === 1) ca = der[f.start] !== 0;
    else if (f.tag === TAG.INTEGER && f.end - f.start <= 4) {
      if (((der[f.start] as number) & 0x80) !== 0) throw new DerError("negative pathLenConstraint");
      pathLen = 0;
      for (let i = f.start; i < f.end; i++) pathLen = pathLen * 256 + (der[i] as number);
    } else throw new DerError("unexpected field in basicConstraints");
  }
  return { ca, pathLen };
}

/** Reads the fields of a DER certificate; throws DerError on anything it cannot read. */
export function certificateFields(der: Uint8Array): CertificateFields {
  const cert = tlv(der, 0, der.length);
  const tbs = cert.tag === TAG.SEQUENCE ? children(der, cert)[0] : undefined;
  if (tbs?.tag !== TAG.SEQUENCE) throw new DerError("not a certificate");
  const fields = children(der, tbs);
  const at = fields[0]?.tag === VERSION ? 1 : 0;
  // serialNumber, signature, issuer, validity, then subject.
  const subjectName = fields[at + 4];
  if (!subjectName) throw new DerError("certificate has no subject");
  const out: CertificateFields = {
    subject: nameAttributes(der, subjectName),
    subjectAltNames: undefined,
    extendedKeyUsage: undefined,
    digitalSignature: undefined,
    basicConstraints: undefined,
    critical: [],
  };
  const extensions = fields.find((t) => t.tag === EXTENSIONS);
  if (!extensions) return out;
  const list = inner(der, extensions, TAG.SEQUENCE, "extensions");
  const seen = new Set<string>();
  for (const ext of children(der, list)) {
    const parts = ext.tag === TAG.SEQUENCE ? children(der, ext) : [];
    const id = parts[0];
    const value = parts.at(-1);
    if (!id || value?.tag !== TAG.OCTET_STRING || parts.length > 3) throw new DerError("malformed extension");
    const oid = oidText(der, id);
    // RFC 5280 §4.2: a certificate must not carry one extension twice.
    if (seen.has(oid)) throw new DerError(`extension ${oid} appears twice`);
    seen.add(oid);
    const flag = parts.length === 3 ? parts[1] : undefined;
    if (flag && (flag.tag !== TAG.BOOLEAN || flag.end - flag.start !== 1))
      throw new DerError("malformed critical flag");
    if (flag && der[flag.start] !== 0) out.critical.push(oid);
    if (oid === OID.subjectAltName) out.subjectAltNames = altNames(der, value);
    else if (oid === OID.extendedKeyUsage)
      out.extendedKeyUsage = children(der, inner(der, value, TAG.SEQUENCE, "extKeyUsage")).map((t) =>
        oidText(der, t),
      );
    else if (oid === OID.keyUsage) out.digitalSignature = digitalSignatureBit(der, value);
    else if (oid === OID.basicConstraints) out.basicConstraints = constraints(der, value);
  }
  return out;
}
