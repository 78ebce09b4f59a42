import { createPublicKey, type KeyObject, sign as nodeSign, verify as nodeVerify } from "node:crypto";
import { CborError, type CborValue, decodeCbor, encodeCbor, Tagged } from "../cbor/index.js";

export class CoseError extends Error {
  constructor(
    readonly code: "COSE_DECODE" | "COSE_ALG" | "COSE_VERIFY",
    message: string,
  ) {
    super(message);
  }
}

/** Header labels used across the project. */
export const HEADER = {
  alg: 1,
  crit: 2,
  contentType: 3,
  kid: 4,
  cwtClaims: 15,
  typ: 16,
  x5chain: 33,
  receipts: 394,
  vds: 395,
  vdp: 396,
} as const;

export const ES256 = -7;
export const ES384 = -35;

/** Signs the Sig_structure bytes; node:crypto in production, a deterministic signer in tests. */
export type Signer = (toBeSigned: Uint8Array) => Uint8Array;

/** ES256 (IEEE P1363 r‖s) with a node:crypto private key. */
export function nodeSigner(privateKey: KeyObject): Signer {
  return (data) => new Uint8Array(nodeSign("sha256", data, { key: privateKey, dsaEncoding: "ieee-p1363" }));
}

export interface Sign1 {
  protectedBytes: Uint8Array;
  protectedHeader: Map<CborValue, CborValue>;
  unprotectedHeader: Map<CborValue, CborValue>;
  payload: Uint8Array | null;
  signature: Uint8Array;
}

/** Sig_structure = ["Signature1", protected, external_aad, payload]. */
export function sigStructure(
  protectedBytes: Uint8Array,
  payload: Uint8Array,
  externalAad: Uint8Array = new Uint8Array(),
): Uint8Array {
  return encodeCbor(["Signature1", protectedBytes, externalAad, payload]);
}

/** Builds a tagged COSE_Sign1; `detached` leaves the payload out (nil) but signs it. */
export function signSign1(
  opts: {
    protectedHeader: Map<CborValue, CborValue>;
    unprotectedHeader?: Map<CborValue, CborValue>;
    payload: Uint8Array;
    detached?: boolean;
  },
  signer: Signer,
): Uint8Array {
  const protectedBytes = encodeCbor(opts.protectedHeader);
  const signature = signer(sigStructure(protectedBytes, opts.payload));
  return encodeCbor(
    new Tagged(18, [
      protectedBytes,
      opts.unprotectedHeader ?? new Map(),
      opts.detached ? null : opts.payload,
      signature,
    ]),
  );
}

const isMap = (v: unknown): v is Map<CborValue, CborValue> => v instanceof Map;

/** Decodes a COSE_Sign1 (tagged or not) strictly; CoseError for anything malformed. */
export function decodeSign1(bytes: Uint8Array): Sign1 {
  let item: CborValue;
  try {
    item = decodeCbor(bytes);
  } catch (err) {
    throw new CoseError("COSE_DECODE", err instanceof CborError ? err.message : "malformed COSE_Sign1");
  }
  if (item instanceof Tagged) {
    if (item.tag !== 18) throw new CoseError("COSE_DECODE", `tag ${item.tag} is not COSE_Sign1 (18)`);
    item = item.value;
  }
  if (!Array.isArray(item) || item.length !== 4)
    throw new CoseError("COSE_DECODE", "COSE_Sign1 must be an array of 4");
  const [p, u, payload, signature] = item;
  if (
    !(p instanceof Uint8Array) ||
    !isMap(u) ||
    !(signature instanceof Uint8Array) ||
    !(payload === null || payload instanceof Uint8Array)
  )
    throw new CoseError("COSE_DECODE", "COSE_Sign1 fields have the wrong types");
  let protectedHeader: CborValue = new Map();
  if (p.length > 0) {
    try {
      protectedHeader = decodeCbor(p);
    } catch (err) {
      throw new CoseError("COSE_DECODE", `protected header: ${(err as Error).message}`);
    }
  }
  if (!isMap(protectedHeader)) throw new CoseError("COSE_DECODE", "protected header must be a map");
  return { protectedBytes: p, protectedHeader, unprotectedHeader: u, payload, signature };
}

function hashFor(alg: CborValue): "sha256" | "sha384" {
  if (alg === ES256) return "sha256";
  if (alg === ES384) return "sha384";
  throw new CoseError("COSE_ALG", `unsupported alg ${String(alg)}`);
}

/** True when the signature verifies with `publicKey` (a detached payload must be given). Never throws on bad input. */
export function verifySign1(
  bytes: Uint8Array | Sign1,
  publicKey: KeyObject,
  detachedPayload?: Uint8Array,
): boolean {
  try {
    const s = bytes instanceof Uint8Array ? decodeSign1(bytes) : bytes;
    const payload = s.payload ?? detachedPayload;
    if (!payload) return false;
    const hash = hashFor(s.protectedHeader.get(HEADER.alg) as CborValue);
    const key = publicKey.type === "private" ? createPublicKey(publicKey) : publicKey;
    return nodeVerify(
      hash,
      sigStructure(s.protectedBytes, payload),
      { key, dsaEncoding: "ieee-p1363" },
      s.signature,
    );
  } catch {
    return false;
  }
}
