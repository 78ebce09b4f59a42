// Signing COSE_Sign1 messages is the service's work (seals, receipts, statements); the audit room
// keeps what a verifier runs: decoding and verifying, and the Sig_structure's start both share.

import {
  type CborValue,
  type CborWriter,
  headSize,
  releaseWriter,
  takeWriter,
  writeHead,
} from "../../formats/cbor/encode.js";
import { beginSigStructure, SIGNATURE1 } from "../../formats/cose/sign1.js";

/**
 * Signs the Sig_structure bytes: node:crypto in the service (`nodeSigner`, src/core/node), a
 * deterministic signer in tests. It is called synchronously and its result is copied into the
 * message. A signer marked `readsDuringCallOnly` is given a view of the scratch buffer the bytes
 * were written in; any other gets a copy, which it may keep.
 */
export type Signer = ((toBeSigned: Uint8Array) => Uint8Array) & { readonly readsDuringCallOnly?: true };

const NO_AAD = new Uint8Array();

/** Sig_structure = ["Signature1", protected, external_aad, payload], written at its exact size. */
export function sigStructure(
  protectedBytes: Uint8Array,
  payload: Uint8Array,
  externalAad: Uint8Array = NO_AAD,
): Uint8Array {
  const p = protectedBytes.length;
  const a = externalAad.length;
  const n = payload.length;
  const out = new Uint8Array(SIGNATURE1.length + headSize(p) + p + headSize(a) + a + headSize(n) + n);
  out.set(SIGNATURE1);
  let o = writeHead(out, SIGNATURE1.length, 2, p);
  out.set(protectedBytes, o);
  o = writeHead(out, o + p, 2, a);
  out.set(externalAad, o);
  o = writeHead(out, o + a, 2, n);
  out.set(payload, o);
  return out;
}

interface Sign1Parts {
  unprotectedHeader?: Map<CborValue, CborValue>;
  payload: Uint8Array;
  detached?: boolean;
}

// The protected header is encoded at this offset of the scratch buffer, leaving room before it for
// the Sig_structure's prefix and the header's byte-string head (3 bytes: headers up to 64 KiB).
const PROTECTED_AT = SIGNATURE1.length + 3;

/** Builds a tagged COSE_Sign1; `detached` leaves the payload out (nil) but signs it. */
export function signSign1(
  opts: Sign1Parts & { protectedHeader: Map<CborValue, CborValue> },
  signer: Signer,
): Uint8Array {
  const w = takeWriter();
  try {
    w.reserve(PROTECTED_AT);
    w.pos = PROTECTED_AT;
    w.value(opts.protectedHeader);
    const p = w.pos - PROTECTED_AT;
    const h = headSize(p);
    if (h > 3) return signSign1Encoded({ ...opts, protectedBytes: w.buf.slice(PROTECTED_AT, w.pos) }, signer);
    const start = PROTECTED_AT - h - SIGNATURE1.length;
    w.buf.set(SIGNATURE1, start);
    writeHead(w.buf, PROTECTED_AT - h, 2, p);
    return finishSign1(w, start, PROTECTED_AT, opts, signer);
  } finally {
    releaseWriter(w);
  }
}

/** signSign1 with the protected header already encoded (headers that repeat are encoded once). */
export function signSign1Encoded(
  opts: Sign1Parts & { protectedBytes: Uint8Array },
  signer: Signer,
): Uint8Array {
  const w = takeWriter();
  try {
    beginSigStructure(w, opts.protectedBytes);
    return finishSign1(w, 0, w.pos - opts.protectedBytes.length, opts, signer);
  } finally {
    releaseWriter(w);
  }
}

/**
 * With the Sig_structure written up to its protected header (from `start`, the header at
 * `protectedAt`): writes the rest of it and the unprotected header to the scratch buffer, signs, and
 * copies the parts into the one buffer returned.
 */
function finishSign1(
  w: CborWriter,
  start: number,
  protectedAt: number,
  opts: Sign1Parts,
  signer: Signer,
): Uint8Array {
  const p = w.pos - protectedAt;
  w.byteString(NO_AAD);
  w.byteString(opts.payload);
  const signedEnd = w.pos;
  if (opts.unprotectedHeader) w.value(opts.unprotectedHeader);
  else w.byte(0xa0);
  const buf = w.buf;
  const toBeSigned = buf.subarray(start, signedEnd);
  const signature = signer(signer.readsDuringCallOnly ? toBeSigned : toBeSigned.slice());
  const u = w.pos - signedEnd;
  const n = opts.detached ? -1 : opts.payload.length;
  const s = signature.length;
  const out = new Uint8Array(2 + headSize(p) + p + u + (n < 0 ? 1 : headSize(n) + n) + headSize(s) + s);
  out[0] = 0xd2; // tag 18
  out[1] = 0x84; // array of 4
  let o = writeHead(out, 2, 2, p);
  out.set(buf.subarray(protectedAt, protectedAt + p), o);
  o += p;
  out.set(buf.subarray(signedEnd, signedEnd + u), o);
  o += u;
  if (n < 0)
    out[o++] = 0xf6; // nil: the payload is detached
  else {
    o = writeHead(out, o, 2, n);
    out.set(opts.payload, o);
    o += n;
  }
  o = writeHead(out, o, 2, s);
  out.set(signature, o);
  return out;
}
