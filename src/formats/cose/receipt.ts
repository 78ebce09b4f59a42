import { type CborValue, decodeCbor } from "../cbor/index.js";
import type { EcJwk, PublicKey } from "../crypto/public-key.js";
import { includedRoot } from "../mmr/index.js";
import { carriedKeyOf, carriedKeyRefusal } from "./cnf-key.js";
import { CoseError, decodeSign1, HEADER, type Sign1, verifySign1 } from "./sign1.js";

/** Verifiable data structure 3: the MMR profile (draft-bryce-cose-merkle-mountain-range-proofs). */
export const VDS_MMR = 3;
/** Label of inclusion proofs in the verifiable-data-structure proofs header (RFC 9942). */
export const INCLUSION = -1;

/** Unprotected header carrying the leaf's idtimestamp (unsigned: changing it only breaks the recomputed leaf). */
export const LEAF_IDTIMESTAMP = -70001;

/**
 * How an MMR receipt writes its inclusion proof under 396 / -1. `map`: the map `{1: mmr_index,
 * 2: path}` directly, as DataTrails (go-datatrails-merklelog's MMRiverInclusionProof, the decoder
 * veracity uses) and Forestrie's canopy write and read it, and as every deployed MMR verifier
 * expects: the default. `bstr`: the byte string wrapping `[mmr_index, path]` the profile draft's
 * CDDL writes (and every receipt this service issued before 0.2 carries); issued on request and
 * always read.
 */
export type MmrProofForm = "map" | "bstr";

/** Receipts for larger indices or longer paths are refused: the MMR arithmetic is exact (and terminates) only below these. */
const MAX_MMR_INDEX = 2 ** 40;
const MAX_PATH = 64;

export interface ReceiptInfo {
  idtimestamp: string;
  kid: string;
  issuer: string;
  subject: string;
  mmrIndex: number;
  path: Uint8Array[];
  /** How the receipt wrote its inclusion proof. */
  form: MmrProofForm;
  /** The key its CWT `cnf` claim carries, if any: worth nothing unless it is the pinned one. */
  carriedKey?: EcJwk | undefined;
}

/**
 * A receipt of the given profile, its first inclusion proof (decoded from its bstr, or as it
 * stands when it is a map) and who signed it for which log (no signature check). Both profiles
 * share this envelope (RFC 9942).
 */
export function receiptEnvelope(
  receipt: Uint8Array,
  vds: number,
  profile: string,
): {
  s: Sign1;
  proof: CborValue;
  kid: string;
  issuer: string;
  subject: string;
  carriedKey: EcJwk | undefined;
} {
  const s = decodeSign1(receipt);
  if (s.protectedHeader.get(HEADER.vds) !== vds)
    throw new CoseError("COSE_DECODE", `receipt is not of the ${profile} profile (vds ${vds})`);
  const vdp = s.unprotectedHeader.get(HEADER.vdp);
  const proofs = vdp instanceof Map ? vdp.get(INCLUSION) : undefined;
  const first = Array.isArray(proofs) ? proofs[0] : undefined;
  if (!(first instanceof Uint8Array) && !(first instanceof Map))
    throw new CoseError("COSE_DECODE", "receipt carries no inclusion proof");
  const claims = s.protectedHeader.get(HEADER.cwtClaims);
  const kid = s.protectedHeader.get(HEADER.kid);
  return {
    s,
    proof: first instanceof Uint8Array ? decodeCbor(first) : first,
    kid: kid instanceof Uint8Array ? new TextDecoder().decode(kid) : "",
    issuer: claims instanceof Map ? String(claims.get(1) ?? "") : "",
    subject: claims instanceof Map ? String(claims.get(2) ?? "") : "",
    carriedKey: carriedKeyOf(s.protectedHeader),
  };
}

/** Every inclusion path is at most this long and made of 32-byte hashes. */
export function checkPath(path: CborValue[]): Uint8Array[] {
  if (path.length > MAX_PATH) throw new CoseError("COSE_DECODE", `path longer than ${MAX_PATH} hashes`);
  if (!path.every((p): p is Uint8Array => p instanceof Uint8Array && p.length === 32))
    throw new CoseError("COSE_DECODE", "path entries must be 32-byte hashes");
  return path;
}

/** Reads a receipt's header and inclusion proof (no signature check). */
export function decodeReceipt(receipt: Uint8Array): ReceiptInfo {
  const { s, proof, kid, issuer, subject, carriedKey } = receiptEnvelope(receipt, VDS_MMR, "MMR");
  const { index, rawPath, form } = mmrProofParts(proof);
  if (!Number.isSafeInteger(index) || index < 0 || index >= MAX_MMR_INDEX)
    throw new CoseError("COSE_DECODE", `mmr_index ${index} is out of range`);
  const path = checkPath(rawPath);
  const idts = s.unprotectedHeader.get(LEAF_IDTIMESTAMP);
  return {
    idtimestamp: typeof idts === "string" ? idts : "",
    kid,
    issuer,
    subject,
    mmrIndex: index,
    path,
    form,
    carriedKey,
  };
}

/** The index and path of an MMR inclusion proof in either form (the map's keys exactly 1 and 2). */
function mmrProofParts(proof: CborValue): { index: number; rawPath: CborValue[]; form: MmrProofForm } {
  if (proof instanceof Map) {
    const index = proof.get(1);
    const path = proof.get(2);
    if (proof.size !== 2 || typeof index !== "number" || !Array.isArray(path))
      throw new CoseError("COSE_DECODE", "inclusion proof must be {1: mmr_index, 2: [path]}");
    return { index, rawPath: path, form: "map" };
  }
  if (!Array.isArray(proof) || proof.length !== 2 || typeof proof[0] !== "number" || !Array.isArray(proof[1]))
    throw new CoseError(
      "COSE_DECODE",
      "inclusion proof must be {1: mmr_index, 2: [path]} or bstr .cbor [mmr_index, [path]]",
    );
  return { index: proof[0], rawPath: proof[1], form: "bstr" };
}

/** Recomputes the peak from the leaf and the path, and checks the service's signature over it. */
export function verifyReceipt(
  receipt: Uint8Array,
  leafHash: Uint8Array,
  publicKey: PublicKey,
): { ok: true; info: ReceiptInfo; peak: Uint8Array } | { ok: false; reason: string } {
  let info: ReceiptInfo;
  try {
    info = decodeReceipt(receipt);
  } catch (err) {
    return { ok: false, reason: `receipt is malformed: ${(err as Error).message}` };
  }
  const carried = carriedKeyRefusal(info.carriedKey, publicKey);
  if (carried) return { ok: false, reason: carried };
  let peak: Uint8Array;
  try {
    peak = includedRoot(info.mmrIndex, leafHash, info.path);
  } catch {
    // A path climbing past 2^64 positions cannot belong to any log.
    return { ok: false, reason: "inclusion path leads outside any possible MMR" };
  }
  if (!verifySign1(receipt, publicKey, peak))
    return {
      ok: false,
      reason: "receipt signature does not verify over the recomputed peak (record or receipt changed)",
    };
  return { ok: true, info, peak };
}
