import { logKeyHistory } from "../../services/ledger/key-history.js";
import { periodChain, periodCheckpoint } from "../../services/ledger/log-periods.js";
import { checkpointNote, logMlDsaVkey, logVkey, tileBytes } from "../../services/ledger/tlog.js";
import { witnessStatus } from "../../services/ledger/tlog-witnesses.js";
import { notFound, pathUuid } from "../../verify/primitives.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import { periodChainAnswer } from "../schemas/periods.js";
import { witnessList } from "../schemas/witnesses.js";

const group = "merklelogsv1";
const prefix = "/archivist/v1/merklelogs/{tenant}/tlog";

/**
 * C2SP tlog-tiles of each tenancy's RFC 9162 tree, public like the seals: the checkpoint (it
 * changes at every seal, so caches keep it for seconds), the log's vkey, and tiles and entry
 * bundles, which never change once served (a partial tile of a width is as fixed as a full one).
 */
export function tlogRoutes(t: RouteTable, d: HttpDeps): void {
  t.add({
    method: "get",
    path: `${prefix}/checkpoint`,
    group,
    auth: "public",
    summary: "The log's C2SP checkpoint (a signed note) with its witnesses' cosignatures",
    handler: async ({ params, res }) =>
      res
        .header("content-type", "text/plain; charset=utf-8")
        .header("cache-control", "public, max-age=2")
        .send(await checkpointNote(d.ctx, pathUuid(params.tenant, "log"))),
  });
  t.add({
    method: "get",
    path: `${prefix}/key`,
    group,
    auth: "public",
    summary: "The log's checkpoint verification key (signed-note vkey, Ed25519)",
    handler: async ({ params, res }) =>
      res
        .header("content-type", "text/plain; charset=utf-8")
        .header("cache-control", "public, max-age=3600")
        .send(`${await logVkey(d.ctx, pathUuid(params.tenant, "log"))}\n`),
  });
  t.add({
    method: "get",
    path: `${prefix}/key-ml-dsa-44`,
    group,
    auth: "public",
    summary: "The log's post-quantum checkpoint verification key (signed-note vkey, ML-DSA-44, type 0x06)",
    handler: async ({ params, res }) =>
      res
        .header("content-type", "text/plain; charset=utf-8")
        .header("cache-control", "public, max-age=3600")
        .send(`${await logMlDsaVkey(d.ctx, pathUuid(params.tenant, "log"))}\n`),
  });
  t.add({
    method: "get",
    path: `${prefix}/keys`,
    group,
    auth: "public",
    summary:
      "Every checkpoint key the log has had (Ed25519, ML-DSA-44) as vkeys, with when each was valid (retired keys stay published)",
    handler: async ({ params, res }) => {
      res.header("cache-control", "public, max-age=60");
      return logKeyHistory(d.ctx, pathUuid(params.tenant, "log"));
    },
  });
  t.add({
    method: "get",
    path: `${prefix}/witnesses`,
    group,
    auth: "public",
    summary:
      "The witnesses the log submits its checkpoints to (name, cosignature vkey), the quorum, and each one's newest cosignature",
    response: witnessList,
    handler: async ({ params, res }) => {
      res.header("cache-control", "public, max-age=2");
      return witnessStatus(d.ctx, pathUuid(params.tenant, "log"));
    },
  });
  t.add({
    method: "get",
    path: `${prefix}/periods`,
    group,
    auth: "public",
    summary:
      "The log's periods (docs/scaling.md): each closed one's final checkpoint, its consistency with the published checkpoint and the next period's link entry's inclusion in it",
    response: periodChainAnswer,
    handler: async ({ params, res }) => {
      res.header("cache-control", "public, max-age=2");
      return periodChain(d.ctx, pathUuid(params.tenant, "log"));
    },
  });
  t.add({
    method: "get",
    path: `${prefix}/periods/{period}/checkpoint`,
    group,
    auth: "public",
    summary: "A closed period's final checkpoint (a signed note, with its cosignatures); it never changes",
    handler: async ({ params, res }) => {
      const period = Number(params.period);
      if (!/^(0|[1-9][0-9]{0,8})$/.test(params.period ?? "")) throw notFound("closed period");
      return res
        .header("content-type", "text/plain; charset=utf-8")
        .header("cache-control", "public, max-age=31536000, immutable")
        .send(await periodCheckpoint(d.ctx, pathUuid(params.tenant, "log"), period));
    },
  });
  t.add({
    method: "get",
    path: `${prefix}/tile/*`,
    group,
    auth: "public",
    summary: "A C2SP tile (tile/<L>/<N>[.p/<W>]) or entry bundle (tile/entries/<N>[.p/<W>])",
    handler: async ({ params, res }) =>
      res
        .header("content-type", "application/octet-stream")
        .header("cache-control", "public, max-age=31536000, immutable")
        .send(Buffer.from(await tileBytes(d.ctx, pathUuid(params.tenant, "log"), params["*"] ?? ""))),
  });
}
