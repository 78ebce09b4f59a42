import { randomUUID } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";

const QUIET = new Set(["/healthz", "/metrics"]);

/** The header a request's id arrives and is echoed in. */
export const REQUEST_ID_HEADER = "x-request-id";

/**
 * Fastify's request-id options: the caller's `x-request-id` when it sends one, else a fresh
 * UUID, kept by Fastify as `req.id` (no map of our own from requests to ids).
 */
export const requestIdOptions = {
  requestIdHeader: REQUEST_ID_HEADER,
  genReqId: () => randomUUID(),
} as const;

/**
 * The line logged when a response finishes (at `info`; a busy server at `warn` skips it).
 * Lighter than a child logger per request: at the default levels a busy server would
 * otherwise pay for loggers it never writes to.
 */
export function logRequest(log: Logger, req: FastifyRequest, res: FastifyReply): void {
  if (QUIET.has(req.url)) return;
  log.info(
    {
      reqId: req.id,
      req: { method: req.method, url: req.originalUrl },
      res: { statusCode: res.statusCode },
      responseTime: Math.round(res.elapsedTime),
      userAgent: req.headers["datatrails-user-agent"],
      partnerId: req.headers["datatrails-partner-id"],
    },
    "request completed",
  );
}

/** A logger that names the request, for the rare lines written while handling it (faults). */
export function requestLogger(log: Logger, req: FastifyRequest): Logger {
  return log.child({ reqId: req.id, req: { method: req.method, url: req.originalUrl } });
}
