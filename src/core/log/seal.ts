// Making a seal is the sealer's work; the audit room keeps reading and verifying one (cose/seal.ts).
import { type CborValue, encodeCbor } from "../../formats/cbor/encode.js";
import type { SealState } from "../../formats/cose/seal.js";
import { ES256, HEADER } from "../../formats/cose/sign1.js";
import { type Signer, signSign1 } from "./sign1.js";

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
