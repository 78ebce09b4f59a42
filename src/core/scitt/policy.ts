import { X509Certificate } from "node:crypto";
import type { CborValue } from "../../formats/cbor/encode.js";
import {
  algorithmName,
  algorithmOfKey,
  decodeSign1,
  HEADER,
  type Sign1,
  verifySign1,
} from "../../formats/cose/sign1.js";
import type { SignatureKey } from "../../formats/crypto/public-key.js";
import { cwtClaimsOf } from "../../formats/scitt/cwt-claims.js";
import { nodeSignatureKey } from "../node/crypto.js";
import { basicConstraints } from "../x509/basic-constraints.js";
import { bindIssuer } from "./issuer-binding.js";
import { lookupValueProblem } from "./lookup-values.js";

export type PolicyVerdict =
  | { ok: true; issuer: string; subject: string; trustedBy: "key" | "x5chain" }
  | { ok: false; reason: string };

/**
 * Bounds of an x5chain, checked before any certificate is parsed: registration by signature
 * needs no token, so what a refused statement costs must not grow with what it carries. Real
 * paths are a leaf and a few intermediates of a few KiB each.
 */
const X5CHAIN_MAX_CERTIFICATES = 8;
const X5CHAIN_MAX_BYTES = 64 * 1024;

function boundedChain(s: Sign1): Uint8Array[] | undefined {
  const raw: CborValue | undefined =
    s.protectedHeader.get(HEADER.x5chain) ?? s.unprotectedHeader.get(HEADER.x5chain);
  if (raw === undefined) return undefined;
  const ders = raw instanceof Uint8Array ? [raw] : Array.isArray(raw) ? raw : [];
  if (ders.length === 0 || !ders.every((d): d is Uint8Array => d instanceof Uint8Array))
    throw new Error("x5chain must be one or more DER certificates");
  if (ders.length > X5CHAIN_MAX_CERTIFICATES)
    throw new Error(
      `x5chain holds ${ders.length} certificates; at most ${X5CHAIN_MAX_CERTIFICATES} are accepted`,
    );
  const bytes = ders.reduce((n, d) => n + d.length, 0);
  if (bytes > X5CHAIN_MAX_BYTES)
    throw new Error(
      `x5chain holds ${bytes} bytes of certificates; at most ${X5CHAIN_MAX_BYTES} are accepted`,
    );
  return ders;
}

function validNow(c: X509Certificate, now: Date): boolean {
  return new Date(c.validFrom) <= now && now <= new Date(c.validTo);
}

/**
 * Whether `issuer` may sign a certificate that has `below` intermediate CA certificates under
 * it down to the leaf: a CA (basicConstraints CA:TRUE) whose path-length limit, if any, allows
 * that many. A certificate whose extension cannot be read is not trusted to issue.
 */
function mayIssue(issuer: X509Certificate, below: number): boolean {
  if (!issuer.ca) return false;
  try {
    const { ca, pathLen } = basicConstraints(issuer.raw);
    return ca && (pathLen === undefined || below <= pathLen);
  } catch {
    return false;
  }
}

/**
 * The certificate path from `chain[0]` to one of the trusted CA certificates (leaf first, the
 * trusted CA last), or undefined when there is none. Every certificate that issues another must
 * be a CA (basicConstraints CA:TRUE): otherwise the holder of any end-entity certificate under
 * a trusted CA could issue itself a certificate for any name. Each issuer's path-length limit
 * bounds the intermediates below it, so a CA limited to issuing end-entity certificates cannot
 * delegate to a CA of its own. (The trusted CAs were checked when uploaded.)
 */
function pathToTrustedCa(
  chain: X509Certificate[],
  cas: X509Certificate[],
  now: Date,
): X509Certificate[] | undefined {
  for (let i = 0; i < chain.length; i++) {
    const cert = chain[i] as X509Certificate;
    if (!validNow(cert, now)) return undefined;
    // chain[1..i] are the intermediates under whichever certificate issued chain[i].
    const anchor = cas.find(
      (ca) => mayIssue(ca, i) && cert.checkIssued(ca) && cert.verify(ca.publicKey) && validNow(ca, now),
    );
    if (anchor) return [...chain.slice(0, i + 1), anchor];
    const next = chain[i + 1];
    if (!next || !mayIssue(next, i) || !cert.checkIssued(next) || !cert.verify(next.publicKey))
      return undefined;
  }
  return undefined;
}

/** A statement that passed the checks needing nothing but its own bytes. */
export interface ScreenedStatement {
  sign1: Sign1;
  issuer: string;
  subject: string;
  /** The x5chain's certificates, bounded but not yet parsed; undefined when it has none. */
  chain: Uint8Array[] | undefined;
}

/**
 * The checks of the registration policy that need nothing but the statement: it decodes, it
 * carries alg, an issuer and a subject (each within `MAX_LOOKUP_VALUE_BYTES`) and its payload,
 * and its x5chain is within bounds. They
 * run before any look-up, so a refused statement costs one decode (issue 31: an unauthenticated
 * flood of large statements also paid four database reads each, on the embedded engine's one
 * thread).
 */
export function screenStatement(
  statement: Uint8Array,
): { ok: true; statement: ScreenedStatement } | { ok: false; reason: string } {
  let s: Sign1;
  try {
    s = decodeSign1(statement);
  } catch (err) {
    return { ok: false, reason: `not a COSE_Sign1 statement: ${(err as Error).message}` };
  }
  const claims = cwtClaimsOf(s.protectedHeader);
  const issuer = claims instanceof Map ? claims.get(1) : undefined;
  const subject = claims instanceof Map ? claims.get(2) : undefined;
  if (s.protectedHeader.get(HEADER.alg) === undefined)
    return { ok: false, reason: "protected header lacks alg (1)" };
  if (typeof issuer !== "string" || issuer === "")
    return { ok: false, reason: "CWT claims (15) lack the issuer (1)" };
  if (typeof subject !== "string" || subject === "")
    return { ok: false, reason: "CWT claims (15) lack the subject (2)" };
  const long =
    lookupValueProblem("the CWT issuer (1)", issuer) ?? lookupValueProblem("the CWT subject (2)", subject);
  if (long) return { ok: false, reason: long };
  if (!s.payload) return { ok: false, reason: "the payload must be attached to register a statement" };
  try {
    return { ok: true, statement: { sign1: s, issuer, subject, chain: boundedChain(s) } };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

/**
 * The registration policy: headers a statement must carry, and a signature by an issuer the
 * tenancy trusts — one of its registered keys (by kid), or an x5chain ending at one of its
 * TLS CA certificates whose leaf names the CWT issuer (directly, or through a did:x509).
 */
export function checkRegistrationPolicy(
  statement: Uint8Array,
  trust: { keys: Map<string, SignatureKey>; caCertificatesPem: string[]; now?: Date },
): PolicyVerdict {
  const screened = screenStatement(statement);
  return screened.ok ? checkScreenedStatement(screened.statement, trust) : screened;
}

/** A leaf certificate's EC or Ed25519 key; for another kind (RSA) a key that verifies nothing, as no algorithm we check can be its signature. */
function leafKey(leaf: X509Certificate): SignatureKey {
  try {
    return nodeSignatureKey(leaf.publicKey);
  } catch {
    return { jwk: { kty: "EC", crv: "P-256", x: "", y: "" }, verify: () => false };
  }
}

/** Why the statement's `alg` is not one the key signs under, or undefined when it is. */
function algorithmRefusal(s: Sign1, key: SignatureKey, whose: string): string | undefined {
  const alg = s.protectedHeader.get(HEADER.alg);
  const name = algorithmName(alg);
  if (!name) return `alg ${String(alg)} is not one we verify (ES256, ES384, ES512, EdDSA)`;
  const own = algorithmOfKey(key);
  return name === own ? undefined : `the statement is signed under ${name}, but ${whose} signs under ${own}`;
}

/** The rest of the registration policy, for a statement that passed `screenStatement`. */
export function checkScreenedStatement(
  screened: ScreenedStatement,
  trust: { keys: Map<string, SignatureKey>; caCertificatesPem: string[]; now?: Date },
): PolicyVerdict {
  const { sign1: s, issuer, subject } = screened;
  let chain: X509Certificate[] | undefined;
  try {
    chain = screened.chain?.map((d) => new X509Certificate(Buffer.from(d)));
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  const now = trust.now ?? new Date();
  if (chain) {
    const cas = trust.caCertificatesPem.map((p) => new X509Certificate(p));
    const path = pathToTrustedCa(chain, cas, now);
    if (!path) return { ok: false, reason: "x5chain does not end at a TLS CA certificate of this tenancy" };
    if (!verifySign1(s, leafKey(chain[0] as X509Certificate)))
      return { ok: false, reason: "signature does not verify with the x5chain leaf certificate" };
    const bound = bindIssuer(
      issuer,
      path.map((c) => new Uint8Array(c.raw)),
    );
    if (!bound.ok) return bound;
    return { ok: true, issuer, subject, trustedBy: "x5chain" };
  }
  const kid = s.protectedHeader.get(HEADER.kid);
  const key = kid instanceof Uint8Array ? trust.keys.get(new TextDecoder().decode(kid)) : undefined;
  if (!key) return { ok: false, reason: "the issuer key (kid) is not trusted by this tenancy" };
  const refused = algorithmRefusal(s, key, "the trusted issuer key");
  if (refused) return { ok: false, reason: refused };
  if (!verifySign1(s, key))
    return { ok: false, reason: "signature does not verify with the trusted issuer key" };
  return { ok: true, issuer, subject, trustedBy: "key" };
}
