import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { appIdpIssuer } from "../../services/identity/tokens.js";
import type { HttpDeps } from "../deps.js";
import type { Metrics } from "../metrics.js";

const digest = (s: string) => createHash("sha256").update(s).digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

/** Health, readiness, metrics and the OIDC discovery documents of our token issuer. */
export function systemRoutes(
  app: FastifyInstance,
  d: HttpDeps,
  metrics: Metrics,
  extraReady: () => Promise<void>,
): void {
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_req, res) => {
    try {
      await d.ctx.db.ping();
      await extraReady();
      return { status: "ready" };
    } catch (err) {
      return res.code(503).send({ code: 14, message: `not ready: ${(err as Error).message}`, details: [] });
    }
  });
  // Per-route counts and the process's memory are for the operator: off unless a token is set,
  // then only to whoever presents it (a scraper's bearer token).
  const metricsToken = d.ctx.config.metricsToken;
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
    const issuer = appIdpIssuer(d.ctx.config.baseUrl);
    return {
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      token_endpoint: `${d.ctx.config.baseUrl}/archivist/iam/v1/appidp/token`,
      grant_types_supported: ["client_credentials"],
      token_endpoint_auth_methods_supported: ["client_secret_post"],
      id_token_signing_alg_values_supported: ["RS256"],
      response_types_supported: ["token"],
      subject_types_supported: ["public"],
    };
  };
  app.get("/appidpv1/.well-known/openid-configuration", discovery);
  app.get("/appidpv1/.well-known/jwks.json", async () => {
    const key = await d.ctx.keys.get("token", "RS256");
    return { keys: [key.publicJwk] };
  });
}
