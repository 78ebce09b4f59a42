import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { signSign1 } from "../../src/core/log/sign1.js";
import { nodeSigner } from "../../src/core/node/crypto.js";
import { decodeSign1, HEADER } from "../../src/formats/cose/index.js";

/** A file of the test PKI (fixtures/pki, see its README). */
export function pki(name: string): string {
  return readFileSync(new URL(`../../fixtures/pki/${name}`, import.meta.url), "utf8");
}

/** DER of a test PKI certificate. */
export function pkiDer(name: string): Uint8Array {
  return new Uint8Array(new X509Certificate(pki(name)).raw);
}

/**
 * `statement` re-signed with the key in `keyFile`, carrying `certs` (leaf first) as its x5chain
 * and `issuer` as its CWT issuer.
 */
export function signedByCertificates(
  statement: Uint8Array,
  keyFile: string,
  certs: string[],
  issuer: string,
): Uint8Array {
  const s = decodeSign1(statement);
  const h = new Map(s.protectedHeader);
  const claims = new Map(h.get(HEADER.cwtClaims) as Map<number, unknown>);
  claims.set(1, issuer);
  h.set(HEADER.cwtClaims, claims as never);
  h.set(
    HEADER.x5chain,
    certs.map((c) => pkiDer(c)),
  );
  return signSign1(
    { protectedHeader: h, payload: s.payload as Uint8Array },
    nodeSigner(createPrivateKey(pki(keyFile))),
  );
}
