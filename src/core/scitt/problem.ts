import { type CborValue, encodeCbor } from "../../formats/cbor/encode.js";

export interface Problem {
  title: string;
  detail: string;
  status?: number;
  /** A URI naming the kind of problem (RFC 9457 `type`), e.g. the SCRAPI error URNs. */
  type?: string;
}

/**
 * RFC 9290 concise problem details (CBOR), as SCRAPI answers errors: title −1, detail −2,
 * response-code −4; a problem type goes in the standard-member extension key "type".
 */
export function problemDetails(p: Problem): Uint8Array {
  const m = new Map<CborValue, CborValue>([
    [-1, p.title],
    [-2, p.detail],
  ]);
  if (p.status) m.set(-4, p.status);
  if (p.type) m.set("type", p.type);
  return encodeCbor(m);
}

/** The same problem as RFC 9457 JSON, for clients that ask for JSON. */
export function problemJson(p: Problem): Record<string, string | number> {
  return {
    ...(p.type ? { type: p.type } : {}),
    title: p.title,
    detail: p.detail,
    ...(p.status ? { status: p.status } : {}),
  };
}
