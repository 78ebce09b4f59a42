import { createHash } from "node:crypto";
import { CodedError } from "../../formats/coded-error.js";
import { type CertificateFields, certificateFields } from "./certificate-fields.js";

/**
 * did:x509 (draft-birkholz-did-x509, method version 0): an issuer identifier that pins a CA by
 * fingerprint and names the leaf certificate by predicates on its fields, e.g.
 * `did:x509:0:sha256:<b64url>::subject:CN:vendor.example` or `…::san:email:bob%40example.com`.
 * SCITT issuers use it as the CWT `iss` of statements that carry an x5chain.
 */
export interface DidX509 {
  alg: "sha256" | "sha384" | "sha512";
  fingerprint: string;
  predicates: Array<{ name: "subject" | "san" | "eku"; value: string }>;
}

export class DidX509Error extends CodedError<"DID_X509_INVALID"> {
  readonly code = "DID_X509_INVALID";
}

const PREFIX = "did:x509:";
const ALGS = new Set(["sha256", "sha384", "sha512"]);
const BASE64URL = /^[A-Za-z0-9_-]+$/;
// predicate-value = *(1*idchar ":") 1*idchar; idchar = ALPHA / DIGIT / "." / "-" / "_" / pct-encoded
const PREDICATE_VALUE = /^(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+)*$/;
const DOTTED_OID = /^[0-9]+(?:\.[0-9]+)+$/;
const SUBJECT_LABELS: Record<string, string> = {
  CN: "2.5.4.3",
  L: "2.5.4.7",
  ST: "2.5.4.8",
  O: "2.5.4.10",
  OU: "2.5.4.11",
  C: "2.5.4.6",
  STREET: "2.5.4.9",
};

export function isDidX509(issuer: string): boolean {
  return issuer.startsWith(PREFIX);
}

function percentDecoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new DidX509Error(`"${value}" is not valid percent-encoded UTF-8`);
  }
}

/** Parses a did:x509 identifier; throws DidX509Error naming what is wrong. */
export function parseDidX509(did: string): DidX509 {
  if (!isDidX509(did)) throw new DidX509Error("not a did:x509 identifier");
  const [head, ...rest] = did.slice(PREFIX.length).split("::");
  const [version, alg, fingerprint, ...extra] = (head ?? "").split(":");
  if (version !== "0") throw new DidX509Error(`unsupported did:x509 version ${JSON.stringify(version)}`);
  if (!alg || !ALGS.has(alg) || extra.length > 0)
    throw new DidX509Error("the CA fingerprint algorithm must be sha256, sha384 or sha512");
  if (!fingerprint || !BASE64URL.test(fingerprint))
    throw new DidX509Error("the CA fingerprint must be base64url");
  if (rest.length === 0) throw new DidX509Error("a did:x509 identifier needs at least one predicate");
  const predicates = rest.map((p) => {
    const colon = p.indexOf(":");
    const name = colon < 0 ? p : p.slice(0, colon);
    const value = colon < 0 ? "" : p.slice(colon + 1);
    if (name !== "subject" && name !== "san" && name !== "eku")
      throw new DidX509Error(
        name === "fulcio-issuer"
          ? "the fulcio-issuer predicate is not supported"
          : `unknown did:x509 predicate ${JSON.stringify(name)}`,
      );
    if (!PREDICATE_VALUE.test(value)) throw new DidX509Error(`malformed ${name} predicate`);
    return { name, value } as const;
  });
  return { alg: alg as DidX509["alg"], fingerprint, predicates };
}

function subjectHolds(value: string, leaf: CertificateFields): boolean {
  const items = value.split(":");
  if (items.length % 2 !== 0) throw new DidX509Error("the subject predicate needs key:value pairs");
  // Repeated attributes are not part of the model: such a subject cannot be named.
  const subject = new Map<string, string>();
  for (const [oid, text] of leaf.subject) {
    if (subject.has(oid)) throw new DidX509Error("the leaf certificate's subject repeats an attribute");
    subject.set(oid, text);
  }
  const keys = new Set<string>();
  for (let i = 0; i < items.length; i += 2) {
    const key = items[i] as string;
    const oid = SUBJECT_LABELS[key] ?? (DOTTED_OID.test(key) ? key : undefined);
    if (!oid) throw new DidX509Error(`unknown subject attribute ${JSON.stringify(key)}`);
    if (keys.has(oid)) throw new DidX509Error(`subject attribute ${key} is repeated`);
    keys.add(oid);
    if (subject.get(oid) !== percentDecoded(items[i + 1] as string)) return false;
  }
  return true;
}

function sanHolds(value: string, leaf: CertificateFields): boolean {
  const parts = value.split(":");
  const [kind, encoded] = parts;
  if (parts.length !== 2 || (kind !== "email" && kind !== "dns" && kind !== "uri"))
    throw new DidX509Error("the san predicate is <email|dns|uri>:<value>");
  const name = percentDecoded(encoded as string);
  return (leaf.subjectAltNames ?? []).some(([k, v]) => k === kind && v === name);
}

function ekuHolds(value: string, leaf: CertificateFields): boolean {
  if (!DOTTED_OID.test(value)) throw new DidX509Error("the eku predicate is a dotted OID");
  return (leaf.extendedKeyUsage ?? []).includes(value);
}

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

/**
 * Whether `did` names the certificate path `chain` (DER, leaf first, the trust anchor last,
 * already validated by the caller): one of its CA certificates has the pinned fingerprint and
 * every predicate holds for the leaf. Returns the reason when it does not.
 */
export function didX509Names(did: string, chain: Uint8Array[]): { ok: true } | { ok: false; reason: string } {
  try {
    const parsed = parseDidX509(did);
    if (chain.length < 2)
      return { ok: false, reason: "a did:x509 issuer needs a CA certificate in the path" };
    const pinned = chain
      .slice(1)
      .some((der) => base64url(createHash(parsed.alg).update(der).digest()) === parsed.fingerprint);
    if (!pinned) return { ok: false, reason: "no CA certificate in the path has the did:x509 fingerprint" };
    const leaf = certificateFields(chain[0] as Uint8Array);
    for (const p of parsed.predicates) {
      const holds =
        p.name === "subject"
          ? subjectHolds(p.value, leaf)
          : p.name === "san"
            ? sanHolds(p.value, leaf)
            : ekuHolds(p.value, leaf);
      if (!holds)
        return { ok: false, reason: `the leaf certificate does not match the did:x509 ${p.name} predicate` };
    }
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: `did:x509 issuer: ${(err as Error).message}` };
  }
}
