import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";

const requestIds = new WeakMap<Request, string>();

const QUIET = new Set(["/healthz", "/metrics"]);

/**
 * Gives each request an id (the caller's `x-request-id`, or a new one), echoes it, and logs
 * one structured line when the response finishes. Lighter than a child logger per request:
 * at the default levels a busy server would otherwise pay for loggers it never writes to.
 */
export function requestLog(log: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const id = (req.headers["x-request-id"] as string | undefined) || randomUUID();
    requestIds.set(req, id);
    res.setHeader("x-request-id", id);
    if (log.isLevelEnabled("info") && !QUIET.has(req.url)) {
      const started = performance.now();
      res.once("finish", () => {
        log.info(
          {
            reqId: id,
            req: { method: req.method, url: req.originalUrl },
            res: { statusCode: res.statusCode },
            responseTime: Math.round(performance.now() - started),
            userAgent: req.headers["datatrails-user-agent"],
            partnerId: req.headers["datatrails-partner-id"],
          },
          "request completed",
        );
      });
    }
    next();
  };
}

/** A logger that names the request, for the rare lines written while handling it (faults). */
export function requestLogger(log: Logger, req: Request): Logger {
  return log.child({ reqId: requestIds.get(req), req: { method: req.method, url: req.originalUrl } });
}
