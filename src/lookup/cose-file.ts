// What a dropped .cose file is, read by its form: a receipt carries a verifiable data structure
// (395) in its protected header; any other COSE_Sign1 is a signed statement, transparent when it
// carries receipts (394). The checks themselves are the CLI's (keyed-verdict.ts).
import { decodeSign1, HEADER } from "../formats/cose/index.js";

export type CoseFile =
  | { kind: "receipt"; profile: string; issuer: string; subject: string }
  | { kind: "statement"; receipts: number; issuer: string; kid: string };

/** Why a receipt alone is not judged: the verdict of one given without its record or statement. */
export const RECEIPT_ALONE =
  "a receipt alone proves nothing: its signature covers a Merkle root that only the record's leaf gives; give it with the record (.json) or the statement (.cose) it belongs to";

const text = (v: unknown) => (typeof v === "string" ? v : "");

/** True when the bytes start as a COSE_Sign1 does: tag 18, or an untagged array of four. */
export const looksLikeCose = (bytes: Uint8Array): boolean => bytes[0] === 0xd2 || bytes[0] === 0x84;

/** Reads a COSE_Sign1's kind and what it says of itself (unverified); throws when it is not one. */
export function readCoseFile(bytes: Uint8Array): CoseFile {
  const s = decodeSign1(bytes);
  const claims = s.protectedHeader.get(HEADER.cwtClaims);
  const claim = (k: number) => (claims instanceof Map ? text(claims.get(k)) : "");
  const vds = s.protectedHeader.get(HEADER.vds);
  if (vds !== undefined)
    return {
      kind: "receipt",
      profile: vds === 1 ? "RFC9162_SHA256" : vds === 3 ? "MMR" : `vds ${String(vds)}`,
      issuer: claim(1),
      subject: claim(2),
    };
  const receipts = s.unprotectedHeader.get(HEADER.receipts);
  const kid = s.protectedHeader.get(HEADER.kid);
  return {
    kind: "statement",
    receipts: Array.isArray(receipts) ? receipts.length : 0,
    issuer: claim(1),
    kid: kid instanceof Uint8Array ? new TextDecoder().decode(kid) : "",
  };
}
