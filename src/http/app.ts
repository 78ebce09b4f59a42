import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Ctx, Principal } from "../context.js";
import { unstorableIndex } from "../core/filters/text-guard.js";
import { ApiError, badRequest } from "../errors/api-error.js";
import { Authenticator } from "../services/identity/auth.js";
import { untilOnStandby } from "../services/write/acknowledged.js";
import { hasBody, registerBodyParsers, UNREAD_BODY } from "./body.js";
import type { HttpDeps } from "./deps.js";
import { answerClientError, errorHandler, sendError, sendNotFound, toApiError } from "./errors.js";
import { serveWith } from "./listen.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { MULTIPART_OVERHEAD } from "./multipart-file.js";
import { openApiDocument } from "./openapi.js";
import { memoryRateLimiter, type RateLimiter, redisRateLimiter } from "./rate-limit.js";
import { logRequest, REQUEST_ID_HEADER, requestIdOptions } from "./request-log.js";
import { type AnyRouteSpec, queryObject, queryPairs, RouteTable, validate } from "./route.js";
import { routeModules } from "./routes/index.js";
import { systemRoutes } from "./routes/system.js";
import { emptyBody } from "./schemas/common.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The caller, once the route's gate has authenticated its token. */
    principal: Principal | undefined;
  }
}

// `/x/{uuid}:verb` is routed as `/x/{uuid}/@verb`: the router reads `:` as a parameter.
function rewriteVerb(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  const carriesVerb = path.includes(":") || path.includes("%3A") || path.includes("%3a");
  const m = carriesVerb ? /^(.*\/[^/]+?)(?::|%3[Aa])([a-zA-Z][a-zA-Z-]*)$/.exec(path) : null;
  return m ? `${m[1]}/@${m[2]}${q < 0 ? "" : url.slice(q)}` : url;
}

const OPENAPI_SUFFIX = "/@openapi";

const API_HEADERS = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "sandbox; default-src 'none'; frame-ancestors 'none'",
};

/**
 * The body to validate. JSON `null` is never an operation's body, and an empty body is one
 * only where the route says so (verbs, searches): creating an empty record from nothing was
 * a client's mistake answered 200.
 */
function requiredBody(spec: AnyRouteSpec, body: unknown): unknown {
  if (body === null) throw badRequest("request body must be a JSON object, not null");
  if (body !== undefined) return body;
  if (spec.bodyRequired === false || spec.body === emptyBody) return {};
  throw badRequest("request body is required");
}

/** The media type of a request's body, lower-cased without parameters; "" when it names none. */
function mediaTypeOf(req: FastifyRequest): string {
  const header = req.headers["content-type"];
  // What nearly every client sends: nothing to split, trim or lower-case (three strings a request).
  if (header === "application/json") return header;
  return (header ?? "").split(";", 1)[0]?.trim().toLowerCase() ?? "";
}

const isJson = (type: string) => type === "application/json" || /^application\/[^\s/]+\+json$/.test(type);

/**
 * 415 for a body of a type the route does not take, naming the type it got: a JSON route given
 * a form (curl's `-d`) would otherwise read it as an object of strings, or as no fields at all,
 * and create an empty record. A route without a body to send has nothing to refuse.
 */
function refuseMediaType(spec: AnyRouteSpec, req: FastifyRequest): void {
  if (!spec.contentTypes && !hasBody(req)) return;
  const type = mediaTypeOf(req);
  const allowed = spec.contentTypes ?? ["application/json"];
  if (spec.contentTypes ? allowed.includes(type) : isJson(type) && req.body !== UNREAD_BODY) return;
  throw new ApiError(
    "unsupported_media_type",
    `request body must be ${allowed.join(" or ")}, not ${type || "a body without a content type"}`,
  );
}

/** Every prefix of the documented paths up to their first parameter: `/a`, `/a/b`, … */
function staticPrefixes(specs: AnyRouteSpec[]): Set<string> {
  const out = new Set<string>();
  for (const spec of specs) {
    const segments = spec.path.split("/");
    for (let i = 2; i <= segments.length; i++) {
      const last = segments[i - 1] ?? "";
      if (last.includes("{") || last.includes(":")) break;
      out.add(segments.slice(0, i).join("/"));
    }
  }
  return out;
}

export interface BuiltApp {
  server: FastifyInstance;
  deps: HttpDeps;
  metrics: Metrics;
  specs: AnyRouteSpec[];
  /** Serves the bound server's requests once the app is ready (nothing to do for an app only injected into). */
  open(): Promise<void>;
  close(): Promise<void>;
}

/** Hands the server's requests to the app once it is ready: Fastify gives its handler to `serverFactory`. */
interface Served {
  handler?: (req: IncomingMessage, res: ServerResponse) => void;
}

/** The Fastify instance with the API's conventions: URLs, proxies, router options, framework errors. */
function fastifyServer(ctx: Ctx, served: Served, bound: Server | undefined): FastifyInstance {
  return Fastify({
    logger: false,
    rewriteUrl: rewriteVerb,
    ...requestIdOptions,
    // `req.ip` is the client's address: X-Forwarded-For is believed only from the proxies named.
    trustProxy: ctx.config.trustedProxies.length > 0 ? [...ctx.config.trustedProxies] : false,
    // The server is ours (an app only injected into gets one that never listens).
    serverFactory: (h) => {
      served.handler = h;
      return bound ?? createServer();
    },
    // Paths are matched as documented: a trailing slash or a doubled one still finds its route.
    routerOptions: {
      ignoreTrailingSlash: true,
      ignoreDuplicateSlashes: true,
      maxParamLength: 1000,
      // Query strings are read in order from the URL by each route (`queryPairs`), never by the server.
      querystringParser: () => ({}),
    },
    // Client-side faults the server itself finds (a bad URL) get the API's error body too.
    frameworkErrors: (err, _req, res) => void sendError(res.headers(API_HEADERS), toApiError(err)),
    clientErrorHandler: answerClientError,
  });
}

/** The service's metrics, with the refusal counts of the read and standby paths (the process's own only when served). */
function appMetrics(ctx: Ctx): Metrics {
  return createMetrics(
    ctx.reads,
    ctx.logGuard.basis,
    () => ({
      write: ctx.standby?.refused.write ?? 0,
      read_url: ctx.reads.refused.read_url,
      standby_url: ctx.standby?.refused.standby_url ?? 0,
    }),
    ctx.config.metricsToken !== undefined,
    () => ({
      held: ctx.logGuard.heldLogs(),
      headSwapsRefused: ctx.logGuard.shared?.refused,
      indexFailures: ctx.vindex.writer.failures,
    }),
  );
}

/** The per-tenancy rate limiter: shared through Redis when there is one, else this process's own. */
function rateLimiterOf(ctx: Ctx): RateLimiter | undefined {
  const rps = ctx.config.rateLimitRps;
  if (!rps) return undefined;
  return ctx.config.redisUrl ? redisRateLimiter(rps, ctx.config.redisUrl) : memoryRateLimiter(rps);
}

/**
 * One hook each way for every request, not four (with a map from requests to their ids): each
 * hook Fastify runs costs the request. With the callback `preParsing`, the caller kept on the
 * request and the shared principal look-up, ~7 % of an ingested event's service CPU
 * (docs/performance.md, "Issue 35, tenth session").
 */
function addRequestHooks(server: FastifyInstance, ctx: Ctx, metrics: Metrics): void {
  // Every answer, API or error, is what its content-type says and nothing a browser may render
  // as a page of ours: the pages set their own policy (static-files.ts), blobs add more.
  server.addHook("onRequest", (req, res, done) => {
    res.headers(API_HEADERS);
    res.header(REQUEST_ID_HEADER, req.id);
    // An answer to a caller with a token holds what that caller may read (and values that may
    // later be erased): no cache, a browser's own included, keeps a copy. Shared caches already
    // keep none (RFC 9111 §3.5); a route serving public, immutable data sets its own.
    if (req.headers.authorization !== undefined) res.header("cache-control", "no-store");
    done();
  });
  // Per-route counts only when someone may read them (the metrics token), the request's line
  // only at `info`: a service that records neither runs no hook when a response finishes.
  const metered = ctx.config.metricsToken !== undefined;
  const logged = ctx.log.isLevelEnabled("info");
  if (metered || logged)
    server.addHook("onResponse", (req, res, done) => {
      if (metered) {
        const route = req.routeOptions.url ?? "unmatched";
        metrics.requests.inc({ method: req.method, route, status: res.statusCode });
        metrics.latency.observe({ method: req.method, route }, res.elapsedTime / 1000);
      }
      if (logged) logRequest(ctx.log, req, res);
      done();
    });
}

/** Settles the caller: at once (undefined) when nothing is to be waited for, else when the promise does. */
type Gate = (spec: AnyRouteSpec, req: FastifyRequest) => Promise<void> | undefined;
type Run = (spec: AnyRouteSpec, req: FastifyRequest, res: FastifyReply) => Promise<void>;

/**
 * Who is calling is settled before the body is read: a caller without a valid token, or over
 * its tenancy's rate, is refused without its body being read or inflated.
 * Kept on the request (a property every request has, `decorateRequest`), not in a WeakMap:
 * a map keyed by short-lived objects made every young-generation collection trace it.
 */
function routeGate(server: FastifyInstance, deps: HttpDeps): Gate {
  server.decorateRequest("principal", undefined);
  const wantsAuth = (spec: AnyRouteSpec, req: FastifyRequest) =>
    spec.auth === "token" || (spec.auth === "optional" && req.headers.authorization !== undefined);
  const settle = async (req: FastifyRequest) => {
    const principal = await deps.auth.authenticate(req.headers.authorization);
    await deps.limiter?.take(principal.tenantId);
    req.principal = principal;
  };
  return (spec, req) => {
    if (!wantsAuth(spec, req)) return undefined;
    // A pipeline's token, its principal fresh, and no rate to take: no promise for this request.
    const known = deps.limiter ? undefined : deps.auth.cached(req.headers.authorization);
    if (known === undefined) return settle(req);
    req.principal = known;
    return undefined;
  };
}

/** Checked once here rather than by every filter: PostgreSQL text cannot hold these. */
function refuseUnstorable(pairs: [string, string][], params: Record<string, string>): void {
  for (const [k, v] of pairs)
    if (unstorableIndex(k) >= 0 || unstorableIndex(v) >= 0)
      throw badRequest(
        `query parameter ${JSON.stringify(k)} contains a NUL character or an unpaired surrogate`,
      );
  // No entries array per request: most requests' parameters are one uuid.
  for (const k in params)
    if (unstorableIndex(params[k] as string) >= 0)
      throw badRequest(`path parameter ${k} contains a NUL character or an unpaired surrogate`);
}

/**
 * A write to a log another service signs now (its shared head is one this database does not
 * hold: a promoted standby, a copy) is refused before it is stored: this database is no longer
 * the log's, and a write acknowledged into it would never be in the log (docs/scaling.md, "One head").
 */
function refuseLostLog(ctx: Ctx, tenantId: string | undefined): void {
  const log = tenantId ?? ctx.config.scittPublicLog;
  if (log === undefined || !ctx.logGuard.headLost(log)) return;
  throw new ApiError(
    "unavailable",
    `log tenant/${log} is signed by another service on another database: this one takes no writes for it`,
    [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "HEAD_LOST" }],
  );
}

/** Runs one route: refuses what it cannot take, validates its body and query, calls it, sends its answer. */
function routeRunner(ctx: Ctx): Run {
  return async (spec, req, res) => {
    // Present on token routes (the gate authenticated the call); `Call` types it per route's auth.
    const caller = req.principal;
    if (spec.body) refuseMediaType(spec, req);
    const pairs = queryPairs(req.originalUrl);
    const params = req.params as Record<string, string>;
    refuseUnstorable(pairs, params);
    if (spec.method !== "get" && spec.writes !== false) refuseLostLog(ctx, caller?.tenantId ?? params.tenant);
    // An empty form (`curl -d ''`) parses as `{}`: it is no body, as an empty JSON body is.
    const sent = hasBody(req) ? req.body : undefined;
    const body = spec.body ? validate(spec.body, requiredBody(spec, sent), "body") : undefined;
    const query = spec.query ? validate(spec.query, queryObject(pairs), "query") : undefined;
    const out = await spec.handler({
      body,
      query,
      params,
      pairs,
      principal: caller,
      caller,
      req,
      res,
    });
    // A handler that answered itself returns the reply (or nothing); anything else is the JSON to send.
    if (out !== undefined && out !== res && !res.sent) {
      // With a standby, a write is answered done only once the standby holds it (issue 60).
      if (ctx.standby && spec.method !== "get" && spec.writes !== false && res.statusCode < 300)
        await untilOnStandby(ctx);
      // Sent at once (JSON), there is nothing to wait for; a streamed answer is awaited to its end.
      res.send(out);
      if (!res.sent) await res;
    }
  };
}

/**
 * `<prefix>:openapi` for any prefix. The static prefixes of the routes get routes of their
 * own, since `/x/{uuid}` would otherwise take `/x/@openapi`; any other falls to the 404 handler.
 */
function addOpenApiDocuments(server: FastifyInstance, table: RouteTable, deps: HttpDeps): void {
  // Without a token a prefix's document holds its public routes (the SCITT ones, receipts,
  // public assets); a prefix with none asks for a token as before. A token shows every route.
  const publicSpecs = () => table.specs.filter((s) => s.auth !== "token");
  const sendDocument = async (prefix: string, req: FastifyRequest, res: FastifyReply) => {
    const anonymous = req.headers.authorization === undefined;
    const specs = anonymous ? publicSpecs() : table.specs;
    if (!anonymous || !specs.some((s) => s.path.startsWith(prefix)))
      await deps.auth.authenticate(req.headers.authorization);
    return res.send(openApiDocument(specs, prefix, deps.ctx.baseUrl));
  };
  for (const prefix of staticPrefixes(table.specs))
    server.get(`${prefix}${OPENAPI_SUFFIX}`, (req, res) => sendDocument(prefix, req, res));
  server.setNotFoundHandler(async (req, res) => {
    const path = req.url.split("?", 1)[0] ?? "";
    if (req.method !== "GET" || !path.endsWith(OPENAPI_SUFFIX)) return sendNotFound(req, res);
    return sendDocument(path.slice(0, -OPENAPI_SUFFIX.length), req, res);
  });
}

/**
 * Builds the HTTP app: conventions, every route module, health, errors. `bound` is the server
 * already listening (`bindHttpServer`, which sets its deadlines); `open` hands its requests to the
 * app. Without one the app is only injected into.
 */
export function buildApp(
  ctx: Ctx,
  extraReady: () => Promise<void> = async () => undefined,
  bound?: Server,
): BuiltApp {
  const served: Served = {};
  const server = fastifyServer(ctx, served, bound);
  const metrics = appMetrics(ctx);
  const limiter = rateLimiterOf(ctx);
  const deps: HttpDeps = { ctx, auth: new Authenticator(ctx), limiter };

  registerBodyParsers(server, {
    multipartBytes: ctx.config.blobMaxBytes + MULTIPART_OVERHEAD,
    timeoutMs: ctx.config.bodyTimeoutMs,
  });
  addRequestHooks(server, ctx, metrics);
  const table = new RouteTable(server, routeRunner(ctx), routeGate(server, deps));
  for (const register of routeModules) register(table, deps);
  systemRoutes(server, deps, metrics, async () => {
    await limiter?.ping();
    await extraReady();
  });
  addOpenApiDocuments(server, table, deps);
  server.setErrorHandler(errorHandler(ctx.log));
  const open = async () => {
    await server.ready();
    if (bound && served.handler) serveWith(bound, served.handler);
  };
  return { server, deps, metrics, specs: table.specs, open, close: async () => limiter?.close() };
}
