import type { z } from "zod";
import { notFound } from "../../errors/api-error.js";
import { pathUuid } from "../../errors/path-uuid.js";
import { logKeyHistory } from "../../services/ledger/key-history.js";
import { periodChain, periodCheckpoint } from "../../services/ledger/log-periods.js";
import { checkpointNote, logMlDsaVkey, logVkey, tileBytes } from "../../services/ledger/tlog.js";
import { witnessStatus } from "../../services/ledger/tlog-witnesses.js";
import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import { periodChainAnswer } from "../schemas/periods.js";
import { witnessList } from "../schemas/witnesses.js";

const group = "merklelogsv1";
const prefix = "/archivist/v1/merklelogs/{tenant}/tlog";

const TEXT = "text/plain; charset=utf-8";
const IMMUTABLE = "public, max-age=31536000, immutable";
const log = (params: Record<string, string>) => pathUuid(params.tenant, "log");

/**
 * A public GET under the log's prefix: its headers first (as every one of these routes sets
 * them), then the answer: sent as is when `type` names a media type, else as JSON.
 */
function serve(
  t: RouteTable,
  path: string,
  summary: string,
  headers: { type?: string; cache: string },
  answer: (params: Record<string, string>) => Promise<unknown>,
  response?: z.ZodType,
): void {
  t.add({
    method: "get",
    path: `${prefix}${path}`,
    group,
    auth: "public",
    summary,
    response,
    handler: async ({ params, res }) => {
      if (headers.type) res.header("content-type", headers.type);
      res.header("cache-control", headers.cache);
      const body = await answer(params);
      return headers.type ? res.send(body) : body;
    },
  });
}

/** The checkpoint and what checks it: the log's keys, and the witnesses that cosign it. */
function checkpointRoutes(t: RouteTable, d: HttpDeps): void {
  serve(
    t,
    "/checkpoint",
    "The log's C2SP checkpoint (a signed note) with its witnesses' cosignatures",
    { type: TEXT, cache: "public, max-age=2" },
    (params) => checkpointNote(d.ctx, log(params)),
  );
  serve(
    t,
    "/key",
    "The log's checkpoint verification key (signed-note vkey, Ed25519)",
    { type: TEXT, cache: "public, max-age=3600" },
    async (params) => `${await logVkey(d.ctx, log(params))}\n`,
  );
  serve(
    t,
    "/key-ml-dsa-44",
    "The log's post-quantum checkpoint verification key (signed-note vkey, ML-DSA-44, type 0x06)",
    { type: TEXT, cache: "public, max-age=3600" },
    async (params) => `${await logMlDsaVkey(d.ctx, log(params))}\n`,
  );
  serve(
    t,
    "/keys",
    "Every checkpoint key the log has had (Ed25519, ML-DSA-44) as vkeys, with when each was valid (retired keys stay published)",
    { cache: "public, max-age=60" },
    (params) => logKeyHistory(d.ctx, log(params)),
  );
  serve(
    t,
    "/witnesses",
    "The witnesses the log submits its checkpoints to (name, cosignature vkey), the quorum, and each one's newest cosignature",
    { cache: "public, max-age=2" },
    (params) => witnessStatus(d.ctx, log(params)),
    witnessList,
  );
}

/** The log's periods: the chain of them, and each closed one's final checkpoint. */
function periodRoutes(t: RouteTable, d: HttpDeps): void {
  serve(
    t,
    "/periods",
    "The log's periods (docs/scaling.md): each closed one's final checkpoint, its consistency with the published checkpoint and the next period's link entry's inclusion in it",
    { cache: "public, max-age=2" },
    (params) => periodChain(d.ctx, log(params)),
    periodChainAnswer,
  );
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
        .header("content-type", TEXT)
        .header("cache-control", IMMUTABLE)
        .send(await periodCheckpoint(d.ctx, log(params), period));
    },
  });
}

/**
 * C2SP tlog-tiles of each tenancy's RFC 9162 tree, public like the seals: the checkpoint (it
 * changes at every seal, so caches keep it for seconds), the log's vkey, and tiles and entry
 * bundles, which never change once served (a partial tile of a width is as fixed as a full one).
 */
export function tlogRoutes(t: RouteTable, d: HttpDeps): void {
  checkpointRoutes(t, d);
  periodRoutes(t, d);
  serve(
    t,
    "/tile/*",
    "A C2SP tile (tile/<L>/<N>[.p/<W>]) or entry bundle (tile/entries/<N>[.p/<W>])",
    { type: "application/octet-stream", cache: IMMUTABLE },
    async (params) => Buffer.from(await tileBytes(d.ctx, log(params), params["*"] ?? "")),
  );
}
