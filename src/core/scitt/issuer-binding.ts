import { type CertificateFields, certificateFields, OID } from "../x509/certificate-fields.js";
import { didX509Names, isDidX509 } from "../x509/did-x509.js";

export type Binding = { ok: true } | { ok: false; reason: string };

const CN = "2.5.4.3";

/**
 * Critical extensions a path may carry: those this check reads, and certificate policies,
 * which only matter to a relying party that requires a policy (we require none). Any other
 * critical extension (name or policy constraints, say) states a rule we do not enforce, and
 * RFC 5280 §6.1.4 says such a certificate must then be refused rather than half-trusted.
 */
const UNDERSTOOD = new Set<string>([
  OID.basicConstraints,
  OID.keyUsage,
  OID.subjectAltName,
  OID.extendedKeyUsage,
  OID.certificatePolicies,
]);

function hostOf(issuer: string): string | undefined {
  try {
    const u = new URL(issuer);
    return (u.protocol === "https:" || u.protocol === "http:") && !u.username && !u.password
      ? u.hostname.toLowerCase()
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the leaf names `issuer` without a did:x509: as one of its subject alternative names
 * (an email, DNS name or URI, compared exactly), or as an http(s) URL on one of its DNS names.
 * A leaf without alternative names offers its common name as its DNS name, as certificates did
 * before RFC 6125.
 */
function leafNames(issuer: string, leaf: CertificateFields): boolean {
  const cn = leaf.subject.filter(([oid]) => oid === CN).map(([, v]) => v);
  const names = leaf.subjectAltNames ?? cn.map((v): ["dns", string] => ["dns", v]);
  if (names.some(([, v]) => v === issuer)) return true;
  const host = hostOf(issuer);
  return host !== undefined && names.some(([kind, v]) => kind === "dns" && v.toLowerCase() === host);
}

/**
 * Whether a validated certificate path (DER, leaf first, trust anchor last) may speak for the
 * statement's CWT issuer. A trusted CA vouches for whom it certified, not for every name its
 * certificate holders might claim: without this, any holder of a certificate under a tenancy's
 * CA could register statements in another issuer's name.
 */
export function bindIssuer(issuer: string, path: Uint8Array[]): Binding {
  let fields: CertificateFields[];
  try {
    fields = path.map((der) => certificateFields(der));
  } catch (err) {
    return { ok: false, reason: `x5chain certificate cannot be read: ${(err as Error).message}` };
  }
  for (const f of fields) {
    const unknown = f.critical.find((oid) => !UNDERSTOOD.has(oid));
    if (unknown) return { ok: false, reason: `x5chain carries an unsupported critical extension ${unknown}` };
  }
  const leaf = fields[0] as CertificateFields;
  if (leaf.digitalSignature === false)
    return { ok: false, reason: "the x5chain leaf certificate's keyUsage does not allow digitalSignature" };
  if (isDidX509(issuer)) return didX509Names(issuer, path);
  if (leafNames(issuer, leaf)) return { ok: true };
  return {
    ok: false,
    reason:
      "the CWT issuer is not named by the x5chain leaf certificate (use its DNS name, URI or email, or a did:x509 that resolves against the chain)",
  };
}
