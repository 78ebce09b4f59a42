import {
  CborError,
  type CborValue,
  type CborWriter,
  decodeCbor,
  releaseWriter,
  Tagged,
  takeWriter,
} from "../cbor/index.js";
import { CodedError } from "../coded-error.js";
import { sameBytes } from "../crypto/bytes.js";
import { isEd25519Key, type SignatureHash, type SignatureKey } from "../crypto/public-key.js";

/** Why a COSE object could not be read or verified. */
export type CoseErrorCode = "COSE_DECODE" | "COSE_ALG" | "COSE_VERIFY";

export class CoseError extends CodedError<CoseErrorCode> {
  constructor(
    readonly code: CoseErrorCode,
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
export const ES512 = -36;
export const EDDSA = -8;

export interface Sign1 {
  protectedBytes: Uint8Array;
  protectedHeader: Map<CborValue, CborValue>;
  unprotectedHeader: Map<CborValue, CborValue>;
  payload: Uint8Array | null;
  signature: Uint8Array;
}

// 0x84 (array of 4), then "Signature1" as a text string (0x6a + 10 bytes).
export const SIGNATURE1 = Uint8Array.from([0x84, 0x6a, ...new TextEncoder().encode("Signature1")]);
const NO_AAD = new Uint8Array();

/**
 * Writes the Sig_structure's start to the scratch writer `w`: the array head, "Signature1" and the
 * protected header as a byte string. Verifying (here) and signing (src/core/log/sign1.ts) go on
 * from there with the external AAD and the payload.
 */
export function beginSigStructure(w: CborWriter, protectedBytes: Uint8Array): void {
  w.reserve(SIGNATURE1.length);
  w.buf.set(SIGNATURE1);
  w.pos = SIGNATURE1.length;
  w.byteString(protectedBytes);
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
      // p is the decoder's own copy, so what it holds can be read as views into it.
      protectedHeader = decodeCbor(p, { views: true });
    } catch (err) {
      throw new CoseError("COSE_DECODE", `protected header: ${(err as Error).message}`);
    }
  }
  if (!isMap(protectedHeader)) throw new CoseError("COSE_DECODE", "protected header must be a map");
  return { protectedBytes: p, protectedHeader, unprotectedHeader: u, payload, signature };
}

/**
 * The algorithms a signature is checked under (RFC 9053 §2), each bound to the one curve its key
 * is on: a key signs under its own algorithm only, so a P-384 key does not verify a statement
 * that says ES256, nor an Ed25519 key one that says ES512.
 */
const ALGORITHMS = new Map<
  CborValue,
  { name: SignatureAlg; crv: SignatureKey["jwk"]["crv"]; hash?: SignatureHash }
>([
  [ES256, { name: "ES256", crv: "P-256", hash: "sha256" }],
  [ES384, { name: "ES384", crv: "P-384", hash: "sha384" }],
  [ES512, { name: "ES512", crv: "P-521", hash: "sha512" }],
  [EDDSA, { name: "EdDSA", crv: "Ed25519" }],
]);

/** The names of the signature algorithms a statement may be signed under. */
export type SignatureAlg = "ES256" | "ES384" | "ES512" | "EdDSA";

const ALGORITHM_OF_CURVE: Record<SignatureKey["jwk"]["crv"], SignatureAlg> = {
  "P-256": "ES256",
  "P-384": "ES384",
  "P-521": "ES512",
  Ed25519: "EdDSA",
};

/** The algorithm a key signs under: its curve's. */
export const algorithmOfKey = (key: SignatureKey): SignatureAlg => ALGORITHM_OF_CURVE[key.jwk.crv];

/** The name of a COSE_Sign1's `alg`, or undefined for an algorithm we do not check. */
export function algorithmName(alg: CborValue | undefined): SignatureAlg | undefined {
  return alg === undefined ? undefined : ALGORITHMS.get(alg)?.name;
}

/**
 * True when the signature verifies with `publicKey` (a detached payload must be given). A given
 * payload is what the caller checks (a receipt's recomputed peak or root): an attached payload
 * other than it is refused, or a genuine receipt with its own peak attached would verify any
 * path and any leaf. Never throws on bad input.
 */
export function verifySign1(
  bytes: Uint8Array | Sign1,
  publicKey: SignatureKey,
  detachedPayload?: Uint8Array,
): boolean {
  try {
    const s = bytes instanceof Uint8Array ? decodeSign1(bytes) : bytes;
    if (s.payload && detachedPayload && !sameBytes(s.payload, detachedPayload)) return false;
    const payload = s.payload ?? detachedPayload;
    if (!payload) return false;
    const alg = ALGORITHMS.get(s.protectedHeader.get(HEADER.alg) as CborValue);
    if (!alg || alg.crv !== publicKey.jwk.crv) return false;
    // A key reads the data during the call only, so the scratch buffer can hold it.
    const w = takeWriter();
    try {
      beginSigStructure(w, s.protectedBytes);
      w.byteString(NO_AAD);
      w.byteString(payload);
      const data = w.buf.subarray(0, w.pos);
      if (isEd25519Key(publicKey)) return publicKey.verify(data, s.signature);
      return alg.hash !== undefined && publicKey.verify(alg.hash, data, s.signature);
    } finally {
      releaseWriter(w);
    }
  } catch {
    return false;
  }
}
