import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { tokenJwks } from "../../services/identity/token-keys.js";
import { appIdpIssuer } from "../../services/identity/tokens.js";
import type { HttpDeps } from "../deps.js";
import type { Metrics } from "../metrics.js";
import { workMetrics } from "../work-metrics.js";

const digest = (s: string) => createHash("sha256").update(s).digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

/**
 * How long `/readyz` waits for the database and Redis: well inside a probe's own timeout (the
 * compose file's is 5 s), so a database that does not answer is a prompt 503, never a hang.
 */
const READY_DEADLINE_MS = 2000;

/**
 * The readiness check, answering what went wrong (or `undefined`) within READY_DEADLINE_MS. Probes
 * share one check in flight: a database that does not answer holds one ping, not one per probe.
 */
function readiness(check: () => Promise<void>): () => Promise<string | undefined> {
  let inFlight: Promise<string | undefined> | undefined;
  return () => {
    inFlight ??= check().then(
      () => undefined,
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
    const answer = inFlight;
    void answer.finally(() => {
      if (inFlight === answer) inFlight = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((r) => {
      timer = setTimeout(() => {
        // The next probe asks afresh (another pooled connection may answer): one ping per deadline at most.
        if (inFlight === answer) inFlight = undefined;
        r(`the database or Redis did not answer within ${READY_DEADLINE_MS} ms`);
      }, READY_DEADLINE_MS);
    });
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  };
}

/** Health, readiness, metrics and the OIDC discovery documents of our token issuer. */
export function systemRoutes(
  app: FastifyInstance,
  d: HttpDeps,
  metrics: Metrics,
  extraReady: () => Promise<void>,
): void {
  // Liveness: the process serves HTTP. It asks nothing of the database, so a restart is not
  // prescribed for a database that is down (README: Health and readiness).
  app.get("/healthz", async () => ({ status: "ok" }));
  const ready = readiness(async () => {
    await d.ctx.db.ping();
    await extraReady();
  });
  // Readiness: the database (and Redis, when configured) answered within READY_DEADLINE_MS.
  app.get("/readyz", async (_req, res) => {
    const problem = await ready();
    if (problem === undefined) return { status: "ready" };
    return res.code(503).send({ code: 14, message: `not ready: ${problem}`, details: [] });
  });
  // Per-route counts and the process's memory are for the operator: off unless a token is set,
  // then only to whoever presents it (a scraper's bearer token).
  const metricsToken = d.ctx.config.metricsToken;
  // The waiting work's ages cost a read of the database at each scrape: only for a scraper.
  if (metricsToken) workMetrics(metrics.registry, d.ctx);
  app.get("/metrics", async (req, res) => {
    if (!metricsToken)
      return res.code(404).send({
        code: 5,
        message: "metrics are off: set ARCHIVIST_METRICS_TOKEN to serve them to a scraper holding it",
        details: [],
      });
    if (!sameSecret(req.headers.authorization ?? "", `Bearer ${metricsToken}`))
      return res
        .code(401)
        .header("www-authenticate", 'Bearer realm="metrics"')
        .send({ code: 16, message: "metrics need the bearer token ARCHIVIST_METRICS_TOKEN", details: [] });
    return res.header("content-type", metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  const discovery = async () => {
    const issuer = appIdpIssuer(d.ctx.baseUrl);
    return {
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      token_endpoint: `${d.ctx.baseUrl}/archivist/iam/v1/appidp/token`,
      grant_types_supported: ["client_credentials"],
      token_endpoint_auth_methods_supported: ["client_secret_post"],
      id_token_signing_alg_values_supported: ["RS256"],
      response_types_supported: ["token"],
      subject_types_supported: ["public"],
    };
  };
  app.get("/appidpv1/.well-known/openid-configuration", discovery);
  // The signing key first, then retired ones while tokens they signed are still valid.
  app.get("/appidpv1/.well-known/jwks.json", () => tokenJwks(d.ctx.keys));
}
