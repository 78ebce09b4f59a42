import { z } from "zod";
import { badRequest, notFound } from "../../core/api/api-error.js";
import { pathUuid } from "../../core/api/ids.js";
import { latestSeal, publicRecordIdentity, scittKeys, sealSizes } from "../../services/ledger-info.js";
import { consistency, logEntry, receiptFor, treeConsistency } from "../../services/proofs.js";
import { requireReadableEvent } from "../../services/record-access.js";
import { sendCose } from "../cose-response.js";
import type { HttpDeps } from "../deps.js";
import { COSE_TYPE, profileQuery, requestedProfile, sendReceipt } from "../receipt-negotiation.js";
import type { RouteTable } from "../route.js";
import { tlogRoutes } from "./tlog.js";

const group = "merklelogsv1";

function intParam(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (!/^\d+$/.test(raw)) throw badRequest(`${name} must be a non-negative integer`);
  return Number(raw);
}

/** Receipts, log entries, consistency proofs and seals: what verifiers need, most of it without a token. */
export function ledgerRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "get",
    path: "/.well-known/scitt-keys",
    group: "scitt",
    auth: "public",
    summary: "The service's public keys (COSE_KeySet)",
    handler: async ({ res }) =>
      res.header("content-type", "application/cbor").send(Buffer.from(await scittKeys(d.ctx))),
  });
  t.add({
    method: "get",
    path: "/archivist/v1/merklelogs/{tenant}/seals",
    group,
    auth: "public",
    summary: "Sizes of every seal of a log",
    handler: async ({ params }) => ({ mmr_sizes: await sealSizes(d.ctx, pathUuid(params.tenant, "log")) }),
  });
  t.add({
    method: "get",
    path: "/archivist/v1/receipts/assets/{asset}/events/{event}",
    group,
    auth: "optional",
    summary:
      "COSE receipt of an asset event (public records need no token); profile=mmr (default) or rfc9162",
    query: profileQuery,
    handler: async ({ caller, params, query, req, res }) => {
      const event = pathUuid(params.event, "event");
      await requireReadableEvent(d.ctx, caller, pathUuid(params.asset, "asset"), event);
      const receipt = await receiptFor(d.ctx, event, requestedProfile(req, query, "mmr"));
      return sendReceipt(req, res, receipt, { defaultType: COSE_TYPE });
    },
  });
  t.add({
    method: "get",
    path: "/archivist/v1/receipts/events/{uuid}",
    group,
    auth: "public",
    summary:
      "COSE receipt of an asset-free event (hashes only; no token needed); profile=mmr (default) or rfc9162",
    query: profileQuery,
    handler: async ({ params, query, req, res }) => {
      const receipt = await receiptFor(
        d.ctx,
        pathUuid(params.uuid, "event"),
        requestedProfile(req, query, "mmr"),
      );
      return sendReceipt(req, res, receipt, { defaultType: COSE_TYPE });
    },
  });
  t.add({
    method: "get",
    path: "/archivist/v1/merklelogs/{tenant}/entries/{index}",
    group,
    auth: "public",
    summary: "A log entry with its inclusion path",
    query: z.object({ mmr_size: z.string().optional() }),
    handler: async ({ params, query }) => {
      const index = intParam(params.index, "mmr_index");
      if (index === undefined) throw notFound("log entry");
      const tenant = pathUuid(params.tenant, "log");
      return logEntry(d.ctx, tenant, index, intParam(query.mmr_size, "mmr_size"), (e) =>
        publicRecordIdentity(d.ctx, e),
      );
    },
  });
  t.add({
    method: "get",
    path: "/archivist/v1/merklelogs/{tenant}/consistency",
    group,
    auth: "public",
    summary:
      "Consistency proof between two sizes: MMR sizes (profile=mmr, the default) or RFC 9162 tree sizes (profile=rfc9162)",
    query: z.object({ from: z.string(), to: z.string(), profile: z.enum(["mmr", "rfc9162"]).optional() }),
    handler: ({ params, query }) =>
      (query.profile === "rfc9162" ? treeConsistency : consistency)(
        d.ctx,
        pathUuid(params.tenant, "log"),
        intParam(query.from, "from") ?? 0,
        intParam(query.to, "to") ?? 0,
      ),
  });
  t.add({
    method: "get",
    path: "/archivist/v1/merklelogs/{tenant}/seals/latest",
    group,
    auth: "public",
    summary: "The latest seal (or the one of mmr_size), application/cose",
    query: z.object({ mmr_size: z.string().optional() }),
    handler: async ({ params, query, res }) =>
      sendCose(
        res,
        await latestSeal(d.ctx, pathUuid(params.tenant, "log"), intParam(query.mmr_size, "mmr_size")),
      ),
  });
  tlogRoutes(t, d);
}
