import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { decode, type TagDecoder } from "cborg";

/*
 * An independent COSE_Sign1 / MMR-receipt verifier for cross-checking the project's own code:
 * plain cborg (not the strict wrapper) to read, Sig_structure assembled byte by byte, ECDSA from
 * @noble/curves instead of node:crypto, SHA-256 from @noble/hashes, and the MMR arithmetic of the
 * draft in BigInt. Nothing here imports src/.
 */

const concat = (...parts: ArrayLike<number>[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

/** A definite-length CBOR head (lengths below 2^32). */
function head(major: number, n: number): number[] {
  const m = major << 5;
  if (n < 24) return [m | n];
  if (n < 0x100) return [m | 24, n];
  if (n < 0x10000) return [m | 25, n >> 8, n & 0xff];
  return [m | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

const bstr = (b: Uint8Array) => concat(head(2, b.length), b);

/** ["Signature1", protected, h'', payload], written out by hand. */
export function handSigStructure(protectedBytes: Uint8Array, payload: Uint8Array): Uint8Array {
  const context = new TextEncoder().encode("Signature1");
  return concat([0x84], head(3, context.length), context, bstr(protectedBytes), [0x40], bstr(payload));
}

export interface RawSign1 {
  protectedBytes: Uint8Array;
  protectedHeader: Map<unknown, unknown>;
  unprotected: Map<unknown, unknown>;
  payload: Uint8Array | null;
  signature: Uint8Array;
}

const tags: Record<number, TagDecoder> = { 18: (content) => content() };

/** A tagged COSE_Sign1 read with plain cborg. */
export function readSign1(bytes: Uint8Array): RawSign1 {
  const item = decode(bytes, { useMaps: true, tags }) as unknown[];
  const [p, u, payload, signature] = item as [
    Uint8Array,
    Map<unknown, unknown>,
    Uint8Array | null,
    Uint8Array,
  ];
  if (bytes[0] !== 0xd2 || item.length !== 4) throw new Error("not a tagged COSE_Sign1");
  const protectedHeader = decode(p, { useMaps: true }) as Map<unknown, unknown>;
  return { protectedBytes: p, protectedHeader, unprotected: u, payload, signature };
}

/** A public key by its JWK (the core's PublicKey is one, structurally). */
type JwkHolder = { jwk: { x: string; y: string } };

/** Uncompressed SEC1 point of a P-256 public key. */
function rawPublicKey({ jwk }: JwkHolder): Uint8Array {
  return concat([4], Buffer.from(jwk.x, "base64url"), Buffer.from(jwk.y, "base64url"));
}

/** ES256 check of a COSE_Sign1 with @noble/curves (high-S accepted, as COSE does not forbid it). */
export function nobleVerify(bytes: Uint8Array, key: JwkHolder, detached?: Uint8Array): boolean {
  const s = readSign1(bytes);
  // A payload the caller checks (a recomputed peak or root) is the one signed, never an attached stand-in.
  if (s.payload && detached && Buffer.compare(Buffer.from(s.payload), Buffer.from(detached)) !== 0)
    return false;
  const payload = s.payload ?? detached;
  if (!payload) return false;
  return p256.verify(s.signature, handSigStructure(s.protectedBytes, payload), rawPublicKey(key), {
    lowS: false,
  });
}

const allOnes = (p: bigint) => p > 0n && (p & (p + 1n)) === 0n;
const bitLength = (p: bigint) => p.toString(2).length;

/** index_height(i) of the MMR draft, exactly. */
function indexHeight(i: bigint): number {
  let pos = i + 1n;
  while (!allOnes(pos)) pos -= (1n << BigInt(bitLength(pos) - 1)) - 1n;
  return bitLength(pos) - 1;
}

function hashPosPair(pos: bigint, a: Uint8Array, b: Uint8Array): Uint8Array {
  const p = new Uint8Array(8);
  new DataView(p.buffer).setBigUint64(0, pos);
  return sha256(concat(p, a, b));
}

/** included_root(i, node, proof) of the MMR draft. */
export function draftIncludedRoot(index: number, node: Uint8Array, proof: Uint8Array[]): Uint8Array {
  let i = BigInt(index);
  let root = node;
  let g = indexHeight(i);
  for (const sibling of proof) {
    if (indexHeight(i + 1n) > g) {
      i += 1n;
      root = hashPosPair(i + 1n, sibling, root);
    } else {
      i += 2n << BigInt(g);
      root = hashPosPair(i + 1n, root, sibling);
    }
    g++;
  }
  return root;
}

/**
 * The inclusion proof of an MMR-profile receipt, read by hand: 396 → -1 → [{1: index, 2: path}]
 * (the deployed form, as DataTrails' MMRiverInclusionProof declares it) or [bstr .cbor [index, path]]
 * (the profile draft's CDDL).
 */
export function readInclusionProof(s: RawSign1): { index: number; path: Uint8Array[]; form: "map" | "bstr" } {
  const vdp = s.unprotected.get(396) as Map<number, Array<Uint8Array | Map<number, unknown>>>;
  const first = vdp.get(-1)?.[0];
  if (!first) throw new Error("no inclusion proof");
  if (first instanceof Map)
    return { index: first.get(1) as number, path: first.get(2) as Uint8Array[], form: "map" };
  const [index, path] = decode(first) as [number, Uint8Array[]];
  return { index, path, form: "bstr" };
}
