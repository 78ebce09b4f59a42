import { timingSafeEqual } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import type { Logger } from "pino";
import type { ChainConfig } from "../config/types.js";
import type { ConserverMetrics } from "../delivery/metrics.js";
import { ConserverError } from "../errors.js";
import type { LinkContext } from "../links/types.js";
import { MemoryVconStore } from "../store/memory-store.js";
import { parseVcon, requireVconUuid, type VconDocument } from "../vcon.js";
import { type ResolvedLink, runChain } from "./chain.js";

/**
 * What the ingress does with a received vCon before it answers. It resolves once the vCon is
 * safe (stored and queued, or processed); it throws to make the answer a 5xx.
 */
export type WebhookAcceptor = (
  doc: VconDocument,
  uuid: string,
  raw: Uint8Array,
) => Promise<Record<string, unknown>>;

export interface WebhookOptions {
  /** Where to listen (default 127.0.0.1, port 0: any free port). */
  host?: string;
  port?: number;
  /** The path vCons are POSTed to (default `/vcon`). */
  path?: string;
  /** When set, requests must carry it in `headerName` (the webhook link's configured headers). */
  token?: string;
  headerName?: string;
  /** Largest body accepted, in bytes (default 10 MiB). */
  limitBytes?: number;
  accept: WebhookAcceptor;
  log: Logger;
}

export interface WebhookIngress {
  url: string;
  close(): Promise<void>;
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

function authorised(sent: string | string[] | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const got = Buffer.from(typeof sent === "string" ? sent : "");
  const want = Buffer.from(token);
  return got.length === want.length && timingSafeEqual(got, want);
}

function fail(res: FastifyReply, status: number, code: string, message: string) {
  return res.code(status).send({ code, message, details: [] });
}

/**
 * The HTTP ingress for vcon-server's `webhook` link, which POSTs each vCon as JSON. The body is
 * read as received (so hash mode `raw` sees the sender's bytes) and handed to `accept`; the
 * answer comes only after that resolves. The Python link ignores the status it gets back (only
 * a connection error raises there), so nothing may depend on the sender retrying: the acceptor
 * must have made the vCon safe before the 200.
 */
export function buildWebhookApp(o: WebhookOptions): FastifyInstance {
  const limit = o.limitBytes ?? 10 * 1024 * 1024;
  const app = Fastify({ bodyLimit: limit, logger: false, requestTimeout: 60_000 });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: limit }, (_req, body, done) =>
    done(null, body),
  );
  app.post(o.path ?? "/vcon", async (req, res) => {
    if (!authorised(req.headers[(o.headerName ?? "x-conserver-api-token").toLowerCase()], o.token))
      return fail(res, 401, "UNAUTHORIZED", "missing or wrong webhook token");
    const body = req.body;
    if (!Buffer.isBuffer(body) || body.length === 0) return fail(res, 400, "VCON_NOT_OBJECT", "empty body");
    let doc: VconDocument;
    let uuid: string;
    const raw = new Uint8Array(body);
    try {
      doc = parseVcon(raw);
      uuid = requireVconUuid(doc);
    } catch (err) {
      if (err instanceof ConserverError && CLIENT_ERRORS.has(err.code))
        return fail(res, 400, err.code, err.message);
      o.log.warn({ err }, "webhook: unreadable vCon");
      return fail(res, 400, "VCON_INVALID", "the vCon could not be read");
    }
    try {
      return res.code(200).send({ uuid, ...(await o.accept(doc, uuid, raw)) });
    } catch (err) {
      o.log.error({ err, vconUuid: uuid }, "webhook: vCon not accepted");
      const code = err instanceof ConserverError ? err.code : "NOT_ACCEPTED";
      return fail(
        res,
        err instanceof ConserverError ? 500 : 503,
        code,
        err instanceof Error ? err.message : String(err),
      );
    }
  });
  // Framework refusals (too large, unreadable) answer in the same shape as everything else.
  app.setErrorHandler((err: { statusCode?: number; code?: string; message: string }, _req, res) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    const code = err.code === "FST_ERR_CTP_BODY_TOO_LARGE" ? "TOO_LARGE" : "BAD_REQUEST";
    return fail(res, status, code, err.message);
  });
  app.setNotFoundHandler((_req, res) => fail(res, 404, "NOT_FOUND", "no such route"));
  return app;
}

/** Starts the ingress on its own listener. */
export async function startWebhookIngress(o: WebhookOptions): Promise<WebhookIngress> {
  const app = buildWebhookApp(o);
  const address = await app.listen({ host: o.host ?? "127.0.0.1", port: o.port ?? 0 });
  o.log.info({ url: `${address}${o.path ?? "/vcon"}` }, "webhook ingress listening");
  return { url: `${address}${o.path ?? "/vcon"}`, close: () => app.close() };
}

/**
 * Runs the chain on the received vCon in the request (no Redis): 200 `{uuid, result}` when the
 * chain ran, an error status when a link failed. For embedding; `archivist conserver run` queues.
 */
export function chainAcceptor(o: {
  chain: ChainConfig;
  links: Map<string, ResolvedLink>;
  ctx: Omit<LinkContext, "store" | "defaultHashMode"> & { defaultHashMode?: LinkContext["defaultHashMode"] };
  metrics?: ConserverMetrics;
}): WebhookAcceptor {
  return async (doc, uuid) => {
    const store = new MemoryVconStore();
    store.set(uuid, doc);
    const ctx: LinkContext = { ...o.ctx, defaultHashMode: o.ctx.defaultHashMode ?? "raw", store };
    return { result: await runChain(o.chain, uuid, o.links, ctx, o.metrics) };
  };
}

/** The minimum of Redis the queueing acceptor uses. */
export interface IngressRedis {
  rpush(key: string, value: string): Promise<number>;
}

/**
 * Stores the vCon where the conserver keeps them (`vcon:<uuid>`, as received) and pushes its uuid
 * on the chain's ingress list, as a Python conserver's egress would; the link runtime then runs
 * the chain, and a failure there lands in `DLQ:<ingress list>` like any other. Answers after both.
 */
export function queueAcceptor(
  store: { put(uuid: string, json: string): Promise<void> },
  redis: IngressRedis,
  ingressList: string,
): WebhookAcceptor {
  return async (_doc, uuid, raw) => {
    await store.put(uuid, Buffer.from(raw).toString("utf8"));
    await redis.rpush(ingressList, uuid);
    return { queued: ingressList };
  };
}
