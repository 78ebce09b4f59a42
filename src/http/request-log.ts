import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Logger } from "pino";

const requestIds = new WeakMap<FastifyRequest, string>();

const QUIET = new Set(["/healthz", "/metrics"]);

/**
 * Gives each request an id (the caller's `x-request-id`, or a new one), echoes it, and logs
 * one structured line when the response finishes. Lighter than a child logger per request:
 * at the default levels a busy server would otherwise pay for loggers it never writes to.
 */
export function registerRequestLog(server: FastifyInstance, log: Logger): void {
  server.addHook("onRequest", (req, res, done) => {
    const id = (req.headers["x-request-id"] as string | undefined) || randomUUID();
    requestIds.set(req, id);
    res.header("x-request-id", id);
    done();
  });
  server.addHook("onResponse", (req, res, done) => {
    if (log.isLevelEnabled("info") && !QUIET.has(req.url))
      log.info(
        {
          reqId: requestIds.get(req),
          req: { method: req.method, url: req.originalUrl },
          res: { statusCode: res.statusCode },
          responseTime: Math.round(res.elapsedTime),
          userAgent: req.headers["datatrails-user-agent"],
          partnerId: req.headers["datatrails-partner-id"],
        },
        "request completed",
      );
    done();
  });
}

/** A logger that names the request, for the rare lines written while handling it (faults). */
export function requestLogger(log: Logger, req: FastifyRequest): Logger {
  return log.child({ reqId: requestIds.get(req), req: { method: req.method, url: req.originalUrl } });
}
