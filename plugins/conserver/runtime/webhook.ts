import { timingSafeEqual } from "node:crypto";
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import type { ChainConfig } from "../config/types.js";
import type { ConserverMetrics } from "../delivery/metrics.js";
import { ConserverError } from "../errors.js";
import type { LinkContext } from "../links/types.js";
import { MemoryVconStore } from "../store/memory-store.js";
import { parseVcon } from "../vcon/parse.js";
import { requireVconUuid } from "../vcon/uuid.js";
import { type ResolvedLink, runChain } from "./chain.js";

export interface WebhookOptions {
  chain: ChainConfig;
  links: Map<string, ResolvedLink>;
  /** Context of the chain's links; `store` is replaced per request by the received vCon. */
  ctx: Omit<LinkContext, "store" | "defaultHashMode"> & { defaultHashMode?: LinkContext["defaultHashMode"] };
  /** When set, requests must carry it in `headerName` (the webhook link's configured headers). */
  token?: string;
  headerName?: string;
  /** Largest body accepted (express size string or bytes); default 10mb. */
  limit?: string | number;
  metrics?: ConserverMetrics;
}

const CLIENT_ERRORS = new Set([
  "JSON_SYNTAX",
  "JSON_TOO_DEEP",
  "VCON_NOT_OBJECT",
  "VCON_FORM_UNKNOWN",
  "VCON_INVALID",
  "VCON_NO_UUID",
  "VCON_SIGNED_PAYLOAD",
]);

function authorised(req: Request, o: WebhookOptions): boolean {
  if (!o.token) return true;
  const sent = Buffer.from(req.get(o.headerName ?? "x-conserver-api-token") ?? "");
  const want = Buffer.from(o.token);
  return sent.length === want.length && timingSafeEqual(sent, want);
}

function fail(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ code, message });
}

/**
 * Express router receiving vCons POSTed by the conserver's `webhook` link: the body is parsed as
 * received (hash mode `raw` by default, which equals the Python `vcon.hash`), then the chain runs
 * on it. 200 `{uuid, result}` when the chain ran, 400 for a body that is not a vCon, 500 when a
 * link failed (so the sender's chain dead-letters it).
 */
export function createWebhookRouter(o: WebhookOptions): Router {
  const router = express.Router();
  router.post("/", express.raw({ type: () => true, limit: o.limit ?? "10mb" }), async (req, res) => {
    if (!authorised(req, o)) return fail(res, 401, "UNAUTHORIZED", "missing or wrong webhook token");
    const body: unknown = req.body;
    if (!Buffer.isBuffer(body) || body.length === 0) return fail(res, 400, "VCON_NOT_OBJECT", "empty body");
    let uuid: string;
    const store = new MemoryVconStore();
    try {
      const doc = parseVcon(new Uint8Array(body));
      uuid = requireVconUuid(doc);
      store.set(uuid, doc);
    } catch (err) {
      if (err instanceof ConserverError && CLIENT_ERRORS.has(err.code))
        return fail(res, 400, err.code, err.message);
      return fail(res, 500, "INTERNAL", "the vCon could not be read");
    }
    const ctx: LinkContext = { ...o.ctx, defaultHashMode: o.ctx.defaultHashMode ?? "raw", store };
    try {
      const result = await runChain(o.chain, uuid, o.links, ctx, o.metrics);
      res.status(200).json({ uuid, result });
    } catch (err) {
      ctx.log.error({ err, chain: o.chain.name, vconUuid: uuid }, "webhook chain failed");
      const code = err instanceof ConserverError ? err.code : "LINK_FAILED";
      fail(res, 500, code, err instanceof Error ? err.message : String(err));
    }
  });
  // Body-parser failures (too large, aborted) answer JSON like everything else.
  router.use(
    (
      err: { status?: number; type?: string; message?: string },
      _req: Request,
      res: Response,
      _next: NextFunction,
    ) => {
      const status =
        typeof err.status === "number" && err.status >= 400 && err.status < 600 ? err.status : 500;
      fail(
        res,
        status,
        err.type === "entity.too.large" ? "TOO_LARGE" : "BAD_REQUEST",
        err.message ?? "bad request",
      );
    },
  );
  return router;
}
