import type { CborValue } from "../cbor/index.js";
import type { EcJwk, PublicKey } from "../crypto/public-key.js";
import { MAX_TREE_SIZE, rootFromInclusionProof } from "../rfc9162/index.js";
import { carriedKeyRefusal } from "./cnf-key.js";
import { checkPath, receiptEnvelope } from "./receipt.js";
import { CoseError, decodeSign1, HEADER, verifySign1 } from "./sign1.js";

/** Verifiable data structure 1: RFC9162_SHA256 (RFC 9942 §5). */
export const VDS_RFC9162 = 1;

export interface Rfc9162ReceiptInfo {
  kid: string;
  issuer: string;
  subject: string;
  treeSize: number;
  leafIndex: number;
  path: Uint8Array[];
  /** The key its CWT `cnf` claim carries, if any: worth nothing unless it is the pinned one. */
  carriedKey?: EcJwk | undefined;
}

const nat = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/** Reads an RFC9162_SHA256 receipt's header and first inclusion proof (no signature check). */
export function decodeRfc9162Receipt(receipt: Uint8Array): Rfc9162ReceiptInfo {
  const { proof, kid, issuer, subject, carriedKey } = receiptEnvelope(receipt, VDS_RFC9162, "RFC9162_SHA256");
  if (
    !Array.isArray(proof) ||
    proof.length !== 3 ||
    !nat(proof[0]) ||
    !nat(proof[1]) ||
    !Array.isArray(proof[2])
  )
    throw new CoseError("COSE_DECODE", "inclusion proof must be [tree_size, leaf_index, [path]]");
  const [treeSize, leafIndex, path] = proof as [number, number, CborValue[]];
  if (treeSize > MAX_TREE_SIZE || leafIndex >= treeSize)
    throw new CoseError("COSE_DECODE", `leaf_index ${leafIndex} is not in a tree of size ${treeSize}`);
  return { kid, issuer, subject, treeSize, leafIndex, path: checkPath(path), carriedKey };
}

/** Recomputes the root from the leaf hash and the path, and checks the service's signature over it. */
export function verifyRfc9162Receipt(
  receipt: Uint8Array,
  leafHash: Uint8Array,
  publicKey: PublicKey,
): { ok: true; info: Rfc9162ReceiptInfo; root: Uint8Array } | { ok: false; reason: string } {
  let info: Rfc9162ReceiptInfo;
  try {
    info = decodeRfc9162Receipt(receipt);
  } catch (err) {
    return { ok: false, reason: `receipt is malformed: ${(err as Error).message}` };
  }
  const carried = carriedKeyRefusal(info.carriedKey, publicKey);
  if (carried) return { ok: false, reason: carried };
  const root = rootFromInclusionProof(info.leafIndex, info.treeSize, leafHash, info.path);
  if (!root) return { ok: false, reason: "inclusion path does not fit a tree of the receipt's size" };
  if (!verifySign1(receipt, publicKey, root))
    return {
      ok: false,
      reason: "receipt signature does not verify over the recomputed root (record or receipt changed)",
    };
  return { ok: true, info, root };
}

/** The profile of a receipt, from its protected `vds` (undefined for one we do not read). */
export function receiptVds(receipt: Uint8Array): number | undefined {
  const vds = decodeSign1(receipt).protectedHeader.get(HEADER.vds);
  return typeof vds === "number" ? vds : undefined;
}
