import type { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";
import { ApiError, errorStatus } from "../core/api/api-error.js";
import { requestLogger } from "./request-log.js";

interface BodyParserError {
  type?: string;
  status?: number;
}

/** Maps anything thrown to the spec's status and `{code, message, details}`: the one place that does. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const bp = err as BodyParserError;
  if (bp?.type === "entity.too.large") return new ApiError("payload_too_large", "request body is too large");
  if (bp?.type === "entity.parse.failed")
    return new ApiError("invalid_argument", "request body is not valid JSON");
  if (bp?.type === "encoding.unsupported" || bp?.type === "charset.unsupported")
    return new ApiError("invalid_argument", "request body encoding is not supported");
  if (bp?.status && bp.status >= 400 && bp.status < 500)
    return new ApiError("invalid_argument", "request is malformed");
  if (err instanceof Error && (err as { code?: string }).code === "BAD_UTF8")
    return new ApiError("invalid_argument", "request body is not valid UTF-8");
  return new ApiError("internal", "storage or internal error");
}

/** Writes an error response. */
export function sendError(res: Response, err: ApiError): void {
  const status = errorStatus[err.kind];
  for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  res.status(status.http).json({ code: status.grpc, message: err.message, details: err.details });
}

/** Express error middleware: logs real faults, answers clean JSON always. */
export function errorMiddleware(log: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const apiError = toApiError(err);
    if (apiError.kind === "internal") requestLogger(log, req).error({ err }, "request failed");
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendError(res, apiError);
  };
}

/** Unknown routes: 404 with the same body as every other error. */
export function notFoundMiddleware(req: Request, res: Response): void {
  sendError(res, new ApiError("not_found", `no route for ${req.method} ${req.path.replace(/\/@/, ":")}`));
}
