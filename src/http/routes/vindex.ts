import { z } from "zod";
import { pathUuid } from "../../errors/path-uuid.js";
import { lookUpKey } from "../../services/vindex/index-lookup.js";
import {
  indexCheckpointNote,
  indexConsistency,
  indexRevisions,
  indexVkey,
  keyPositions,
  POSITIONS_PAGE,
} from "../../services/vindex/output-log.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";

const group = "vindexv1";
const prefix = "/archivist/v1/merklelogs/{tenant}/vindex";
const count = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,14})$/, "a non-negative integer")
  .transform(Number);

/**
 * The verifiable index (docs/complete-trails.md): a lookup with its proofs for a caller, and the
 * output log anyone may read and check (its checkpoint, revisions and consistency proofs).
 */
export function vindexRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "get",
    path: "/archivist/v1/vindex/lookup",
    group,
    auth: "token",
    summary:
      "The log entries filed under a key (vcon://<uuid>, assets/<uuid>, issuer:…, subject:…) in the caller's tenancy's log, with the proofs that there are no others (or none at all) as of the index's newest revision",
    query: z.object({ key: z.string().min(1).max(2048) }),
    handler: async ({ query, principal }) => lookUpKey(d.ctx, principal, query.key),
  });
  t.add({
    method: "post",
    path: "/archivist/v1/vindex/positions",
    group,
    auth: "token",
    writes: false,
    summary:
      "The VRF proofs of keys' positions in the caller's tenancy's index, for an auditor rebuilding it (callers granted the whole tenancy only)",
    body: z.object({ keys: z.array(z.string().min(1).max(2048)).min(1).max(POSITIONS_PAGE) }),
    handler: async ({ body, principal }) => keyPositions(d.ctx, principal, body.keys),
  });
  const log = (params: Record<string, string>) => pathUuid(params.tenant, "log");
  t.add({
    method: "get",
    path: `${prefix}/checkpoint`,
    group,
    auth: "public",
    summary:
      "The index output log's newest C2SP checkpoint, signed by the log's key under the index's origin",
    handler: async ({ params, res }) =>
      res
        .header("content-type", "text/plain; charset=utf-8")
        .header("cache-control", "public, max-age=2")
        .send(await indexCheckpointNote(d.ctx, log(params))),
  });
  t.add({
    method: "get",
    path: `${prefix}/key`,
    group,
    auth: "public",
    summary:
      "The index output log's verification key (signed-note vkey): the log's Ed25519 key under the index's origin, for witnesses",
    handler: async ({ params, res }) =>
      res
        .header("content-type", "text/plain; charset=utf-8")
        .header("cache-control", "public, max-age=3600")
        .send(`${await indexVkey(d.ctx, log(params))}\n`),
  });
  t.add({
    method: "get",
    path: `${prefix}/revisions`,
    group,
    auth: "public",
    summary:
      "The index's revisions [from, to) (at most 1,000): each binds an index root to the log's size and root",
    query: z.object({ from: count.optional(), to: count.optional() }),
    handler: async ({ params, query }) => indexRevisions(d.ctx, log(params), query.from ?? 0, query.to),
  });
  t.add({
    method: "get",
    path: `${prefix}/consistency`,
    group,
    auth: "public",
    summary: "The RFC 9162 consistency proof between two sizes of the index's output log",
    query: z.object({ from: count, to: count }),
    handler: async ({ params, query }) => indexConsistency(d.ctx, log(params), query.from, query.to),
  });
}
