import type { FastifyReply } from "fastify";
import { z } from "zod";
import type { Principal } from "../../context.js";
import { parseUint64, reachable } from "../../core/api/numbers.js";
import { type ApiError, badRequest, notFound } from "../../errors/api-error.js";
import { pathUuid } from "../../errors/path-uuid.js";
import {
  readableRecordName,
  requireReadableEventOf,
  requireReadableRecord,
} from "../../services/access/readable-records.js";
import { consistency, treeConsistency } from "../../services/ledger/consistency.js";
import { logEntry, logEntryAtLeaf } from "../../services/ledger/entry-paths.js";
import { keyHistory } from "../../services/ledger/key-history.js";
import { latestSeal, scittKey, scittKeys, sealSizes } from "../../services/ledger/ledger-info.js";
import { receiptFor } from "../../services/ledger/proofs.js";
import { tlogProofFor } from "../../services/ledger/tlog-proof.js";
import { sendCose } from "../cose-response.js";
import type { HttpDeps } from "../deps.js";
import {
  COSE_TYPE,
  profileQuery,
  requestedMmrForm,
  requestedProfile,
  sendReceipt,
} from "../receipt-negotiation.js";
import type { RouteTable } from "../route.js";
import { keyType, scrapi } from "../scrapi-handler.js";
import { tlogRoutes } from "./tlog.js";

const group = "merklelogsv1";

/**
 * A log position from the path or query: a uint64 (400 otherwise), as a number, or
 * `beyond` when no log reaches it.
 */
function position(raw: string, name: string, beyond: () => ApiError): number {
  const n = reachable(parseUint64(raw, name));
  if (n === undefined) throw beyond();
  return n;
}

const notCovering = () => badRequest("mmr_size must be a complete MMR size covering the entry");
const tooLarge = () => badRequest("from and to must not exceed the log's size");

/** `?mmr_size=` of an entry or a seal: absent (or empty) for the newest. */
const mmrSizeQuery = z.object({ mmr_size: z.string().optional() });
/** The query's `mmr_size` as a log position (`beyond` when no log reaches it), undefined when absent. */
function requestedSize(query: z.output<typeof mmrSizeQuery>, beyond: () => ApiError): number | undefined {
  const raw = query.mmr_size;
  return raw === undefined || raw === "" ? undefined : position(raw, "mmr_size", beyond);
}

/** A tlog-proof as text, never cached: a later checkpoint makes a newer one. */
const sendTlogProof = (res: FastifyReply, proof: string) =>
  res.header("content-type", "text/plain; charset=utf-8").header("cache-control", "no-store").send(proof);

/** The service's signing keys, current and retired: public, for verifiers to pin. */
function serviceKeyRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "get",
    path: "/.well-known/scitt-keys",
    group: "scitt",
    auth: "public",
    summary:
      "The service's public keys (COSE_KeySet; application/cbor, or application/cose-key-set when asked)",
    handler: async ({ req, res }) =>
      res
        .header("content-type", keyType(req, "application/cose-key-set"))
        .send(Buffer.from(await scittKeys(d.ctx))),
  });
  t.add({
    method: "get",
    path: "/archivist/v1/keys",
    group: "scitt",
    auth: "public",
    summary:
      "Every key the service signs with, current and retired, with when each was valid, and how long retired keys stay published",
    handler: async ({ res }) => {
      res.header("cache-control", "public, max-age=60");
      return keyHistory(d.ctx);
    },
  });
  t.add({
    method: "get",
    path: "/.well-known/scitt-keys/{kid}",
    group: "scitt",
    auth: "public",
    summary:
      "One of the service's public keys by kid (COSE_Key; application/cbor, or application/cose-key when asked)",
    handler: scrapi(async ({ params, req, res }) =>
      res
        .header("content-type", keyType(req, "application/cose-key"))
        .send(Buffer.from(await scittKey(d.ctx, params.kid ?? ""))),
    ),
  });
}

/**
 * One of the two ways a receipt's or a tlog-proof's path names a record: under its asset, or by
 * its id alone. `read` checks the caller may read it and gives its id and its name in the path.
 */
interface RecordPath {
  path: string;
  read: (
    ctx: HttpDeps["ctx"],
    caller: Principal | undefined,
    params: Record<string, string>,
  ) => Promise<{ id: string; name: string }>;
  receipt: string;
  tlogProof: string;
}

const recordPaths: readonly RecordPath[] = [
  {
    path: "assets/{asset}/events/{event}",
    read: async (ctx, caller, params) => {
      const asset = pathUuid(params.asset, "asset");
      const event = pathUuid(params.event, "event");
      await requireReadableEventOf(ctx, caller, asset, event);
      return { id: event, name: `assets/${asset}/events/${event}` };
    },
    receipt:
      "COSE receipt of an asset event (public records need no token); profile=mmr (default) or rfc9162",
    tlogProof:
      "An asset event's c2sp.org/tlog-proof@v1: its RFC 9162 inclusion in the log's published checkpoint (public records need no token)",
  },
  {
    path: "events/{uuid}",
    read: async (ctx, caller, params) => {
      const id = pathUuid(params.uuid, "event");
      await requireReadableRecord(ctx, caller, id);
      return { id, name: `events/${id}` };
    },
    receipt:
      "COSE receipt of a record by its id (public records and registered statements need no token); profile=mmr (default) or rfc9162",
    tlogProof:
      "A record's c2sp.org/tlog-proof@v1 by its id (public records and registered statements need no token)",
  },
];

/**
 * A record's receipts (in the profile and proof form the request asks for, COSE unless it asks
 * otherwise) and tlog-proofs, by either of its paths: to whoever may read the record.
 */
function recordProofRoutes(t: RouteTable, d: HttpDeps): void {
  for (const record of recordPaths)
    t.add({
      method: "get",
      path: `/archivist/v1/receipts/${record.path}`,
      group,
      auth: "optional",
      summary: record.receipt,
      query: profileQuery,
      handler: async ({ caller, params, query, req, res }) => {
        const { id } = await record.read(d.ctx, caller, params);
        const receipt = await receiptFor(
          d.ctx,
          id,
          requestedProfile(req, query, "mmr"),
          requestedMmrForm(req, query),
        );
        return sendReceipt(req, res, receipt, { defaultType: COSE_TYPE });
      },
    });
  for (const record of recordPaths)
    t.add({
      method: "get",
      path: `/archivist/v1/tlog-proofs/${record.path}`,
      group,
      auth: "optional",
      summary: record.tlogProof,
      handler: async ({ caller, params, res }) => {
        const { id, name } = await record.read(d.ctx, caller, params);
        return sendTlogProof(res, await tlogProofFor(d.ctx, id, name));
      },
    });
}

/** A log's entries by either number that names them: its record named only to who may read it. */
function logEntryRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "get",
    path: "/archivist/v1/merklelogs/{tenant}/entries/{index}",
    group,
    auth: "optional",
    summary:
      "The log entry at an MMR position (merklelog_entry.commit.index, as MMR receipts name it) with its inclusion path (its record named to those who may read it)",
    query: mmrSizeQuery,
    handler: async ({ caller, params, query }) => {
      const index = position(params.index ?? "", "mmr_index", () => notFound("log entry"));
      const tenant = pathUuid(params.tenant, "log");
      const size = requestedSize(query, notCovering);
      return logEntry(
        d.ctx,
        tenant,
        index,
        size,
        async (e) => (await readableRecordName(d.ctx, caller, e.record_id)) ?? "",
      );
    },
  });
  t.add({
    method: "get",
    path: "/archivist/v1/merklelogs/{tenant}/leaves/{leaf}",
    group,
    auth: "optional",
    summary:
      "Log entry N, the leaf index checkpoints and tlog-proofs count, as /entries/{index} gives it (its record named to those who may read it)",
    query: mmrSizeQuery,
    handler: async ({ caller, params, query }) => {
      const leaf = position(params.leaf ?? "", "leaf", () => notFound("log entry"));
      const tenant = pathUuid(params.tenant, "log");
      const size = requestedSize(query, notCovering);
      return logEntryAtLeaf(
        d.ctx,
        tenant,
        leaf,
        size,
        async (e) => (await readableRecordName(d.ctx, caller, e.record_id)) ?? "",
      );
    },
  });
}

/** What a log says of itself, not of a record: its consistency between sizes, and its newest seal. */
function logProofRoutes(t: RouteTable, d: HttpDeps): void {
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
        position(query.from, "from", tooLarge),
        position(query.to, "to", tooLarge),
      ),
  });
  t.add({
    method: "get",
    path: "/archivist/v1/merklelogs/{tenant}/seals/latest",
    group,
    auth: "public",
    summary: "The latest seal (or the one of mmr_size), application/cose",
    query: mmrSizeQuery,
    handler: async ({ params, query, res }) => {
      const tenant = pathUuid(params.tenant, "log");
      return sendCose(
        res,
        await latestSeal(
          d.ctx,
          tenant,
          requestedSize(query, () => notFound("seal")),
        ),
      );
    },
  });
}

/**
 * Receipts, log entries, consistency proofs and seals: what verifiers need, most of it without a
 * token. The order is the API document's (docs/api.md lists routes as they are added).
 */
export function ledgerRoutes(t: RouteTable, d: HttpDeps): void {
  serviceKeyRoutes(t, d);
  t.add({
    method: "get",
    path: "/archivist/v1/merklelogs/{tenant}/seals",
    group,
    auth: "public",
    summary: "Sizes of every seal of a log",
    handler: async ({ params }) => ({ mmr_sizes: await sealSizes(d.ctx, pathUuid(params.tenant, "log")) }),
  });
  recordProofRoutes(t, d);
  logEntryRoutes(t, d);
  logProofRoutes(t, d);
  tlogRoutes(t, d);
}
