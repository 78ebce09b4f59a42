// Issuing receipts is the service's work; the audit room keeps decoding and verifying them
// (verify/cose/receipt.ts, receipt-rfc9162.ts), with the labels both sides share.
import { CborBstr, type CborValue } from "../../formats/cbor/encode.js";
import { INCLUSION, LEAF_IDTIMESTAMP, type MmrProofForm, VDS_MMR } from "../../formats/cose/receipt.js";
import { type Rfc9162ReceiptInfo, VDS_RFC9162 } from "../../formats/cose/receipt-rfc9162.js";
import { HEADER } from "../../formats/cose/sign1.js";
import type { EcJwk } from "../../formats/crypto/public-key.js";
import { type ReceiptHeaders, receiptProtectedHeader } from "./receipt-headers.js";
import { type Signer, signSign1Encoded } from "./sign1.js";

export interface ReceiptInput {
  /** The committed leaf's idtimestamp (18 hex digits), so a verifier can recompute the leaf from the record alone. */
  idtimestamp?: string;
  kid: string;
  issuer: string;
  subject: string;
  mmrIndex: number;
  path: Uint8Array[];
  peak: Uint8Array;
  /** The inclusion proof's encoding (default `map`, the deployed form). */
  form?: MmrProofForm;
  /** The signing key's public half, carried in the CWT `cnf` claim as DataTrails' receipts carry theirs. */
  key?: EcJwk | undefined;
}

export interface Rfc9162ReceiptInput extends Rfc9162ReceiptInfo {
  root: Uint8Array;
  key?: EcJwk | undefined;
}

/**
 * Either profile's receipt: the inclusion proof under 396 / -1 (with `extra` unprotected labels),
 * signed over the detached `payload` (the peak or the root) under the profile's protected header,
 * taken from `headers` when the caller keeps them.
 */
function signReceipt(
  r: { kid: string; issuer: string; subject: string; key?: EcJwk | undefined },
  vds: number,
  proof: CborValue,
  payload: Uint8Array,
  signer: Signer,
  headers?: ReceiptHeaders,
  extra: [CborValue, CborValue][] = [],
): Uint8Array {
  const unprotectedHeader = new Map<CborValue, CborValue>([
    [HEADER.vdp, new Map<CborValue, CborValue>([[INCLUSION, [proof]]])],
    ...extra,
  ]);
  const protectedBytes = headers
    ? headers.get(r.kid, r.issuer, r.subject, vds, r.key)
    : receiptProtectedHeader(r.kid, r.issuer, r.subject, vds, r.key);
  return signSign1Encoded({ protectedBytes, unprotectedHeader, payload, detached: true }, signer);
}

/**
 * A COSE receipt of inclusion: signed over the (detached) peak the path leads to. `headers`: the
 * caller's kept encodings of protected headers, for one who signs many receipts.
 */
export function buildReceipt(r: ReceiptInput, signer: Signer, headers?: ReceiptHeaders): Uint8Array {
  const proof =
    r.form === "bstr"
      ? new CborBstr([r.mmrIndex, r.path])
      : new Map<CborValue, CborValue>([
          [1, r.mmrIndex],
          [2, r.path],
        ]);
  const extra: [CborValue, CborValue][] = r.idtimestamp ? [[LEAF_IDTIMESTAMP, r.idtimestamp]] : [];
  return signReceipt(r, VDS_MMR, proof, r.peak, signer, headers, extra);
}

/**
 * An RFC 9942 receipt of inclusion in the RFC 9162 tree: protected `{1: alg, 4: kid, 395: 1,
 * 15: {1: iss, 2: sub[, 8: cnf]}}`, unprotected `{396: {-1: [bstr .cbor [tree_size, leaf_index, path]]}}`,
 * signed over the (detached) root of the tree of `treeSize` leaves. `headers` as for `buildReceipt`.
 */
export function buildRfc9162Receipt(
  r: Rfc9162ReceiptInput,
  key: Signer,
  headers?: ReceiptHeaders,
): Uint8Array {
  const proof = new CborBstr([r.treeSize, r.leafIndex, r.path]);
  return signReceipt(r, VDS_RFC9162, proof, r.root, key, headers);
}
