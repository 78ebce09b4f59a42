import { decodeCbor } from "../cbor/index.js";
import type { PublicKey } from "../crypto/public-key.js";
import { CoseError, decodeSign1, HEADER, verifySign1 } from "./sign1.js";

/** The MMR state a seal signs. */
export interface SealState {
  mmrSize: number;
  timestampMs: number;
  idtimestamp: bigint;
  epoch: number;
  peaks: Uint8Array[];
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
