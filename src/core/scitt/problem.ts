import { type CborValue, encodeCbor } from "../cbor/index.js";

/** RFC 9290 concise problem details (CBOR): title −1, detail −2, response-code −4. */
export function problemDetails(p: { title: string; detail: string; status?: number }): Uint8Array {
  const m = new Map<CborValue, CborValue>([
    [-1, p.title],
    [-2, p.detail],
  ]);
  if (p.status) m.set(-4, p.status);
  return encodeCbor(m);
}
