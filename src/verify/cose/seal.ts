import { type CborValue, decodeCbor, encodeCbor } from "../cbor/index.js";
import type { PublicKey } from "../crypto/public-key.js";
import { CoseError, decodeSign1, ES256, HEADER, type Signer, signSign1, verifySign1 } from "./sign1.js";

/** The MMR state a seal signs. */
export interface SealState {
  mmrSize: number;
  timestampMs: number;
  idtimestamp: bigint;
  epoch: number;
  peaks: Uint8Array[];
}

const enc = new TextEncoder();

/** A seal: a COSE_Sign1 over the CBOR MMR state `{1: size, 3: ms, 4: idtimestamp, 6: epoch, 7: 2, 8: peaks}`. */
export function buildSeal(
  s: { kid: string; issuer: string; logId: string; state: SealState },
  key: Signer,
): Uint8Array {
  const payload = encodeCbor(
    new Map<CborValue, CborValue>([
      [1, s.state.mmrSize],
      [3, s.state.timestampMs],
      [4, s.state.idtimestamp],
      [6, s.state.epoch],
      [7, 2],
      [8, s.state.peaks],
    ]),
  );
  const protectedHeader = new Map<CborValue, CborValue>([
    [HEADER.alg, ES256],
    [HEADER.kid, enc.encode(s.kid)],
    [
      HEADER.cwtClaims,
      new Map<CborValue, CborValue>([
        [1, s.issuer],
        [2, s.logId],
      ]),
    ],
  ]);
  return signSign1({ protectedHeader, payload }, key);
}

/** Reads a seal's state (no signature check). */
export function decodeSeal(seal: Uint8Array): SealState & { logId: string; issuer: string } {
  const s = decodeSign1(seal);
  if (!s.payload) throw new CoseError("COSE_DECODE", "seal has no payload");
  const m = decodeCbor(s.payload);
  const peaks = m instanceof Map ? m.get(8) : undefined;
  const num = (k: number) => {
    const v = m instanceof Map ? m.get(k) : undefined;
    const ok = typeof v === "bigint" ? v >= 0n : typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
    if (!ok) throw new CoseError("COSE_DECODE", `seal state field ${k} must be an unsigned integer`);
    return v as number | bigint;
  };
  if (m instanceof Map && m.get(7) !== 2) throw new CoseError("COSE_DECODE", "seal state version must be 2");
  if (
    !Array.isArray(peaks) ||
    !peaks.every((p): p is Uint8Array => p instanceof Uint8Array && p.length === 32)
  )
    throw new CoseError("COSE_DECODE", "seal peaks are malformed");
  const claims = s.protectedHeader.get(HEADER.cwtClaims);
  return {
    mmrSize: Number(num(1)),
    timestampMs: Number(num(3)),
    idtimestamp: BigInt(num(4)),
    epoch: Number(num(6)),
    peaks,
    logId: claims instanceof Map ? String(claims.get(2) ?? "") : "",
    issuer: claims instanceof Map ? String(claims.get(1) ?? "") : "",
  };
}

/**
 * True when the seal's signature verifies with the service key.
 *
 * @example
 * ```ts
 * if (!verifySeal(sealBytes, keysFromKeySet(keySet).get(kid)!)) throw new Error("the seal is not the service's");
 * ```
 */
export function verifySeal(seal: Uint8Array, publicKey: PublicKey): boolean {
  return verifySign1(seal, publicKey);
}
