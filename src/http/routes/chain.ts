import { z } from "zod";
import { pathUuid } from "../../errors/path-uuid.js";
import { eventTransactions, exportChain, getBlock, nodeStatus } from "../../services/ledger/chain.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";

/** The archivist node, its blocks, the chain export and per-event blockchain transactions. */
export function chainRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "get",
    path: "/archivist/v1/archivistnode",
    group: "archivistnodev1",
    auth: "token",
    summary: "Archivist node status",
    handler: () => nodeStatus(d.ctx),
  });
  t.add({
    method: "get",
    path: "/archivist/v1/archivistnode/block",
    group: "archivistnodev1",
    auth: "token",
    summary: "A block by number (decimal or 0x hex) or hash; the newest without either",
    query: z.object({ number: z.string().optional(), hash: z.string().optional() }),
    handler: ({ query }) => getBlock(d.ctx, query),
  });
  t.add({
    method: "get",
    path: "/archivist/v1/archivistnode/blocks",
    group: "archivistnodev1",
    auth: "public",
    summary: "Export the chain (blocks after `after`), for offline checking",
    query: z.object({ after: z.string().optional() }),
    handler: ({ query }) => exportChain(d.ctx, query.after),
  });
  t.add({
    method: "get",
    path: "/archivist/v1alpha2/blockchain/assets/{asset}/events/{event}",
    group: "blockchainv1alpha2",
    auth: "token",
    summary: "Blockchain transactions of an event",
    handler: ({ principal: p, params }) =>
      eventTransactions(d.ctx, p, pathUuid(params.asset, "asset"), pathUuid(params.event, "event")),
  });
}
