import { certificateFields } from "./certificate-fields.js";

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

/**
 * The certificate's basicConstraints; `{ ca: false }` without the extension. Throws on DER it
 * cannot read, so that a caller treats such a certificate as untrusted rather than unlimited.
 */
export function basicConstraints(der: Uint8Array): BasicConstraints {
  return certificateFields(der).basicConstraints ?? { ca: false, pathLen: undefined };
}
