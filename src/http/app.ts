import express, { type Express, type Request, type Response } from "express";
import type { Ctx, Principal } from "../context.js";
import { badRequest } from "../core/api/api-error.js";
import { unstorableIndex } from "../core/filters/text-guard.js";
import { Authenticator } from "../services/auth.js";
import { coseBody, formBody, jsonBody } from "./body.js";
import type { HttpDeps } from "./deps.js";
import { errorMiddleware, notFoundMiddleware } from "./errors.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { openApiDocument } from "./openapi.js";
import { memoryRateLimiter, type RateLimiter, redisRateLimiter } from "./rate-limit.js";
import { requestLog } from "./request-log.js";
import { type AnyRouteSpec, queryObject, queryPairs, RouteTable, validate } from "./route.js";
import { routeModules } from "./routes/index.js";
import { systemRoutes } from "./routes/system.js";

/** A request body is present when it has content; verbs arrive with none. */
function hasBody(req: Request): boolean {
  const len = req.headers["content-length"];
  return (len !== undefined && len !== "0") || req.headers["transfer-encoding"] !== undefined;
}

// `/x/{uuid}:verb` is routed as `/x/{uuid}/@verb`, because `:` starts a parameter in express paths.
function rewriteVerb(req: Request, _res: Response, next: () => void): void {
  const q = req.url.indexOf("?");
  const path = q < 0 ? req.url : req.url.slice(0, q);
  const carriesVerb = path.includes(":") || path.includes("%3A") || path.includes("%3a");
  const m = carriesVerb ? /^(.*\/[^/]+?)(?::|%3[Aa])([a-zA-Z][a-zA-Z-]*)$/.exec(path) : null;
  if (m) req.url = `${m[1]}/@${m[2]}${q < 0 ? "" : req.url.slice(q)}`;
  next();
}

export interface BuiltApp {
  app: Express;
  deps: HttpDeps;
  metrics: Metrics;
  specs: AnyRouteSpec[];
  close(): Promise<void>;
}

/** Builds the express app: conventions, every route module, health, errors. */
export function buildApp(ctx: Ctx, extraReady: () => Promise<void> = async () => undefined): BuiltApp {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");
  const deps: HttpDeps = { ctx, auth: new Authenticator(ctx) };
  const metrics = createMetrics();
  const rps = ctx.config.rateLimitRps;
  const limiter: RateLimiter | undefined = rps
    ? ctx.config.redisUrl
      ? redisRateLimiter(rps, ctx.config.redisUrl)
      : memoryRateLimiter(rps)
    : undefined;

  app.use(requestLog(ctx.log));
  app.use(rewriteVerb);
  app.use((req, res, next) => {
    const end = metrics.latency.startTimer();
    res.on("finish", () => {
      const route = (req.route?.path as string | undefined) ?? "unmatched";
      metrics.requests.inc({ method: req.method, route, status: res.statusCode });
      end({ method: req.method, route });
    });
    next();
  });

  const run = async (spec: AnyRouteSpec, req: Request, res: Response) => {
    let principal = undefined as unknown as Principal;
    const wantsAuth =
      spec.auth === "token" || (spec.auth === "optional" && req.headers.authorization !== undefined);
    if (wantsAuth) {
      principal = await deps.auth.authenticate(req.headers.authorization);
      await limiter?.take(principal.tenantId);
    }
    if (spec.body && hasBody(req) && req.body === undefined && !req.is("application/x-www-form-urlencoded"))
      throw badRequest("request body must be application/json");
    const pairs = queryPairs(req);
    // Checked once here rather than by every filter: PostgreSQL text cannot hold these.
    for (const [k, v] of pairs)
      if (unstorableIndex(k) >= 0 || unstorableIndex(v) >= 0)
        throw badRequest(
          `query parameter ${JSON.stringify(k)} contains a NUL character or an unpaired surrogate`,
        );
    for (const [k, v] of Object.entries(req.params as Record<string, string>))
      if (unstorableIndex(v) >= 0)
        throw badRequest(`path parameter ${k} contains a NUL character or an unpaired surrogate`);
    const body = spec.body ? validate(spec.body, req.body ?? {}, "body") : undefined;
    const query = spec.query ? validate(spec.query, queryObject(pairs), "query") : undefined;
    const params = req.params as Record<string, string>;
    const out = await spec.handler({
      body,
      query,
      params,
      pairs,
      principal,
      caller: wantsAuth ? principal : undefined,
      req,
      res,
    });
    if (out !== undefined && !res.headersSent) res.json(out);
  };

  const router = express.Router();
  router.use(formBody, coseBody, ...jsonBody());
  const table = new RouteTable(router, run);
  router.get(/^(.*)\/@openapi$/, async (req, res, next) => {
    try {
      await deps.auth.authenticate(req.headers.authorization);
      const prefix = (req.params as Record<string, string>)[0] ?? "";
      res.json(openApiDocument(table.specs, prefix, ctx.config.baseUrl));
    } catch (err) {
      next(err);
    }
  });
  for (const register of routeModules) register(table, deps);
  systemRoutes(app, deps, metrics, async () => {
    await limiter?.ping();
    await extraReady();
  });
  app.use(router);
  app.use(notFoundMiddleware);
  app.use(errorMiddleware(ctx.log));
  return { app, deps, metrics, specs: table.specs, close: async () => limiter?.close() };
}
