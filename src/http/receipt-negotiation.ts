import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { badRequest } from "../errors/api-error.js";
import type { MmrProofForm } from "../formats/cose/receipt.js";
import type { Profile } from "../services/ledger/proofs.js";

/** The registered receipt media type (RFC 9943); `application/cose` is still answered to who asks for it. */
const RECEIPT_TYPE = "application/scitt-receipt+cose";
export const COSE_TYPE = "application/cose";

/**
 * `profile=mmr|rfc9162` or `vds=3|1` chooses a receipt's verifiable data structure;
 * `mmr_proof=map|bstr` how an MMR receipt writes its inclusion proof (map, the deployed form
 * DataTrails and Forestrie read, by default; bstr, the profile draft's CDDL, on request).
 */
export const profileQuery = z.object({
  profile: z.enum(["mmr", "rfc9162"]).optional(),
  vds: z.enum(["1", "3"]).optional(),
  mmr_proof: z.enum(["map", "bstr"]).optional(),
});

const byVds: Record<string, Profile> = { "1": "rfc9162", "3": "mmr" };

const NO_PARAMS: ReadonlyArray<[string, string | undefined]> = [];

/**
 * Each `key=value` parameter of the receipt and COSE media ranges in Accept, in order. An Accept
 * that names neither type (most clients send the wildcard) has none, found without splitting it:
 * a receipt request asks twice (profile and proof form), ~1.5 % of a receipt's service CPU.
 */
function receiptRangeParams(accept: string | undefined): ReadonlyArray<[string, string | undefined]> {
  if (accept === undefined || !/cose/i.test(accept)) return NO_PARAMS;
  const out: Array<[string, string | undefined]> = [];
  for (const range of accept.split(",")) {
    const [type, ...params] = range.split(";").map((p) => p.trim().toLowerCase());
    if (type !== RECEIPT_TYPE && type !== COSE_TYPE) continue;
    for (const p of params) {
      const [k = "", v] = p.split("=").map((x) => x.trim().replace(/^"|"$/g, ""));
      out.push([k, v]);
    }
  }
  return out;
}

/** `vds` or `profile` parameters of a receipt or COSE media range in Accept, if any. */
function acceptedProfile(accept: string | undefined): Profile | undefined {
  for (const [k, v] of receiptRangeParams(accept)) {
    // Own keys only: `vds=constructor` must not read Object.prototype as a profile.
    if (k === "vds" && v && Object.hasOwn(byVds, v)) return byVds[v];
    if (k === "profile" && (v === "mmr" || v === "rfc9162")) return v;
  }
  return undefined;
}

/** `mmr_proof` parameter of a receipt or COSE media range in Accept, if any. */
function acceptedForm(accept: string | undefined): MmrProofForm | undefined {
  for (const [k, v] of receiptRangeParams(accept))
    if (k === "mmr_proof" && (v === "map" || v === "bstr")) return v;
  return undefined;
}

/**
 * How an MMR receipt's inclusion proof is written for this request (`mmr_proof` in the query,
 * then in Accept): the deployed map unless the request asks for the draft's bstr.
 */
export function requestedMmrForm(
  req: FastifyRequest,
  query: { mmr_proof?: MmrProofForm | undefined },
): MmrProofForm {
  const fromQuery = query.mmr_proof;
  const fromAccept = acceptedForm(req.headers.accept);
  if (fromQuery && fromAccept && fromQuery !== fromAccept)
    throw badRequest(`the query asks for mmr_proof=${fromQuery} and Accept for mmr_proof=${fromAccept}`);
  return fromQuery ?? fromAccept ?? "map";
}

/** The profile a request asks for (query first, then Accept), else `fallback`. */
export function requestedProfile(
  req: FastifyRequest,
  query: { profile?: Profile | undefined; vds?: string | undefined },
  fallback: Profile,
): Profile {
  const fromQuery = query.profile ?? (query.vds ? byVds[query.vds] : undefined);
  const fromAccept = acceptedProfile(req.headers.accept);
  if (fromQuery && fromAccept && fromQuery !== fromAccept)
    throw badRequest(`the query asks for a ${fromQuery} receipt and Accept for a ${fromAccept} one`);
  return fromQuery ?? fromAccept ?? fallback;
}

/**
 * Answers a receipt: as `application/scitt-receipt+cose`, or as `application/cose` when the
 * request asks for that type and not the registered one (older clients), or when the route's
 * default is the old type (the DataTrails-form routes) and the request names neither.
 */
export function sendReceipt(
  req: FastifyRequest,
  res: FastifyReply,
  receipt: Uint8Array,
  opts: { status?: number; defaultType?: string } = {},
): FastifyReply {
  const accept = (req.headers.accept ?? "").toLowerCase();
  const type = accept.includes(RECEIPT_TYPE)
    ? RECEIPT_TYPE
    : accept.includes(COSE_TYPE)
      ? COSE_TYPE
      : (opts.defaultType ?? RECEIPT_TYPE);
  return res
    .code(opts.status ?? 200)
    .header("content-type", type)
    .send(Buffer.from(receipt));
}
